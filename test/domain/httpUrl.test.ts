import { describe, expect, it } from "@effect/vitest"
import { hasCredentials, parseHttpUrl } from "../../src/domain/httpUrl.ts"

describe("parseHttpUrl", () => {
  it("reads an absolute http or https URL, trimmed, and a relative one against its base", () => {
    expect(parseHttpUrl("  https://example.com/a.jpg\n")?.href).toBe("https://example.com/a.jpg")
    expect(parseHttpUrl("/b.jpg", new URL("http://example.com/a/a.jpg"))?.href).toBe("http://example.com/b.jpg")
  })

  it("refuses other schemes, relative text without a base, and what is no URL", () => {
    expect([parseHttpUrl("ftp://example.com/a.jpg"), parseHttpUrl("/a.jpg"), parseHttpUrl("file:///etc/passwd"), parseHttpUrl("not a url")])
      .toEqual([null, null, null, null])
  })
})

describe("hasCredentials", () => {
  it("finds a user name, a password, or both; a relative URL inherits its base's", () => {
    const held = ["https://u:p@example.com/", "https://u@example.com/", "https://:p@example.com/"]
    expect(held.map((text) => hasCredentials(new URL(text)))).toEqual([true, true, true])
    expect(hasCredentials(new URL("https://example.com/a@b.jpg"))).toBe(false)
    expect(hasCredentials(new URL("/b.jpg", "https://u:p@example.com/a.jpg"))).toBe(true)
  })
})
