/** The dashboard's pure rules: CSRF checks, credentials, the key form, the usage report, the Try it form. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { fromThisSite, sameToken } from "../../src/dashboard/csrf.ts"
import { blankFieldsAbsent } from "../../src/dashboard/tryForm.ts"
import { accountNameUsed, emailUsed, newPasswordUsed } from "../../src/domain/credentials.ts"
import { keyExpiryUsed, keyNameUsed } from "../../src/domain/keyForm.ts"
import { barPercent, DayCount, everyDay, periodStart } from "../../src/domain/usageReport.ts"

const now = new Date("2026-03-01T12:00:00.000Z")
const day = 864e5
const refusedField = <A>(result: Either.Either<A, { readonly field: string }>) => Either.isLeft(result) ? result.left.field : "accepted"

describe("CSRF", () => {
  it("a token matches only itself; absent and empty tokens match nothing", () => {
    expect(sameToken("abc", "abc")).toBe(true)
    for (const [given, expected] of [["abc", "abd"], ["abc", "abcd"], ["", ""], [undefined, "abc"], ["abc", undefined]] as const) {
      expect(sameToken(given, expected)).toBe(false)
    }
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => {
      expect(sameToken(a, b)).toBe(a !== "" && a === b)
    }))
  })

  it("a post is from this site when the browser says same-origin, or its Origin is this host", () => {
    const host = "dash.example:8080"
    expect(fromThisSite({ fetchSite: "same-origin", origin: "http://dash.example:8080", host })).toBe(true)
    for (const fetchSite of ["cross-site", "same-site", "none"]) {
      expect(fromThisSite({ fetchSite, origin: "http://dash.example:8080", host })).toBe(false)
    }
    expect(fromThisSite({ fetchSite: undefined, origin: "http://dash.example:8080", host })).toBe(true)
    expect(fromThisSite({ fetchSite: undefined, origin: "https://evil.example", host })).toBe(false)
    expect(fromThisSite({ fetchSite: undefined, origin: "null", host })).toBe(false)
    // Not a browser's form post: the token decides alone.
    expect(fromThisSite({ fetchSite: undefined, origin: undefined, host })).toBe(true)
  })
})

describe("credentials", () => {
  it("an address is trimmed and lowered; one without an @ or with spaces is refused", () => {
    expect(emailUsed("  Ada@Example.COM ")).toEqual(Either.right("ada@example.com"))
    for (const email of ["", "ada", "ada@", "@example.com", "a da@example.com", `${"a".repeat(250)}@x.io`]) {
      expect(refusedField(emailUsed(email))).toBe("email")
    }
  })

  it("a password has 8 to 256 characters, counted as characters (not UTF-16 units), taken as typed", () => {
    expect(newPasswordUsed("  eight ")).toEqual(Either.right("  eight "))
    expect(refusedField(newPasswordUsed("😀😀😀😀😀😀😀"))).toBe("password")
    expect(newPasswordUsed("😀".repeat(256))).toEqual(Either.right("😀".repeat(256)))
    expect(refusedField(newPasswordUsed("x".repeat(257)))).toBe("password")
  })

  it("an account name is trimmed, required and at most 100 characters", () => {
    expect(accountNameUsed("  Ada's shop ")).toEqual(Either.right("Ada's shop"))
    expect(refusedField(accountNameUsed("   "))).toBe("name")
    expect(refusedField(accountNameUsed("x".repeat(101)))).toBe("name")
  })
})

describe("the key form", () => {
  it("presets count from now; one year when nothing is chosen", () => {
    expect(keyExpiryUsed("30", undefined, now)).toEqual(Either.right(new Date(now.getTime() + 30 * day)))
    expect(keyExpiryUsed(undefined, undefined, now)).toEqual(Either.right(new Date(now.getTime() + 365 * day)))
    expect(refusedField(keyExpiryUsed("7", undefined, now))).toBe("expiry")
  })

  it("a date means through that day in UTC: today is allowed, yesterday and impossible dates are not", () => {
    expect(keyExpiryUsed("date", "2026-03-01", now)).toEqual(Either.right(new Date("2026-03-02T00:00:00.000Z")))
    expect(keyExpiryUsed("date", " 2030-12-31 ", now)).toEqual(Either.right(new Date("2031-01-01T00:00:00.000Z")))
    for (const date of ["2026-02-28", "2026-02-30", "31/12/2030", "", undefined]) {
      expect(refusedField(keyExpiryUsed("date", date, now))).toBe("expires-on")
    }
  })

  it("a blank name is no name; a name over 100 characters is refused", () => {
    expect(keyNameUsed("  ")).toEqual(Either.right(null))
    expect(keyNameUsed(undefined)).toEqual(Either.right(null))
    expect(keyNameUsed(" CMS ")).toEqual(Either.right("CMS"))
    expect(refusedField(keyNameUsed("x".repeat(101)))).toBe("name")
  })
})

describe("the usage report", () => {
  it("has one row per day of the period ending today, oldest first, zeros where there was nothing", () => {
    expect(periodStart(now, 14)).toEqual(new Date("2026-02-16T00:00:00.000Z"))
    const days = everyDay([new DayCount({ day: "2026-02-20", requests: 3, succeeded: 2 })], now, 14)
    expect(days.map((d) => d.day)).toEqual(Array.from({ length: 14 }, (_, i) => new Date(Date.UTC(2026, 1, 16 + i)).toISOString().slice(0, 10)))
    expect(days.map((d) => d.requests)).toEqual([0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0])
  })

  it("bars are shares of the longest; a non-zero count is never drawn as nothing", () => {
    expect([barPercent(0, 10), barPercent(5, 10), barPercent(10, 10), barPercent(1, 1000), barPercent(3, 0)]).toEqual([0, 50, 100, 1, 0])
  })
})

describe("the Try it form", () => {
  it("reads blank fields and an empty file part as absent, as a browser sends every field", () => {
    const text = (value: string) => ({ text: value, truncated: false })
    expect(blankFieldsAbsent({
      image: { bytes: new Uint8Array(0), size: 0 },
      imageUrl: text(" "),
      schema: text("  \n"),
      keywords: text(""),
      context: text("A shop"),
      language: undefined
    })).toEqual({ image: undefined, imageUrl: undefined, schema: undefined, keywords: undefined, context: text("A shop"), language: undefined })
  })
})
