import { describe, expect, it } from "@effect/vitest"
import { retryAfterMillis } from "../../src/domain/retryAfter.ts"

const now = Date.parse("2026-11-27T12:00:00Z")
const headers = (values: Record<string, string>) => (name: string) => values[name] ?? null

describe("retryAfterMillis", () => {
  it.each([
    [{ "retry-after-ms": "1500" }, 1500],
    [{ "retry-after-ms": " 250.5 " }, 250.5],
    [{ "retry-after": "3" }, 3000],
    [{ "retry-after": "0" }, 0],
    [{ "retry-after": "Fri, 27 Nov 2026 12:00:10 GMT" }, 10_000],
    [{ "retry-after": "Fri, 27 Nov 2026 11:59:00 GMT" }, 0],
    [{ "retry-after-ms": "800", "retry-after": "30" }, 800],
    [{ "retry-after-ms": "soon", "retry-after": "2" }, 2000]
  ])("reads %j as %d ms", (values, expected) => {
    expect(retryAfterMillis(headers(values), now)).toBe(expected)
  })

  it.each([[{}], [{ "retry-after": "" }], [{ "retry-after": "later" }], [{ "retry-after": "-5" }], [{ "retry-after-ms": "-1" }]])(
    "gives nothing for %j",
    (values) => {
      expect(retryAfterMillis(headers(values), now)).toBeUndefined()
    }
  )
})
