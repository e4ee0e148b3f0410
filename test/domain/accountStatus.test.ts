import { describe, expect, it } from "@effect/vitest"
import { isActive } from "../../src/domain/accountStatus.ts"
import { Subscription } from "../../src/domain/models.ts"

const now = new Date("2026-11-28T12:00:00.000Z")
const subscription = (status: string, endsAt: string | null) =>
  new Subscription({ planName: "Pro", planDescription: "", status, renewsAt: null, endsAt: endsAt === null ? null : new Date(endsAt) })

describe("isActive (§2.3's active subscription)", () => {
  it("is active while not expired and before its end date, if it has one", () => {
    expect(isActive(subscription("active", null), now)).toBe(true)
    expect(isActive(subscription("past_due", null), now)).toBe(true)
    expect(isActive(subscription("cancelled", "2026-11-28T12:00:01.000Z"), now)).toBe(true)
  })

  it("is not once expired, or at and after its end date", () => {
    expect(isActive(subscription("expired", null), now)).toBe(false)
    expect(isActive(subscription("expired", "2027-01-01T00:00:00.000Z"), now)).toBe(false)
    expect(isActive(subscription("cancelled", "2026-11-28T12:00:00.000Z"), now)).toBe(false)
    expect(isActive(subscription("active", "2026-11-01T00:00:00.000Z"), now)).toBe(false)
  })
})
