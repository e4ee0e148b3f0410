import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { contextUsed, firstCharacters, keywordsUsed, languageUsed } from "../../src/domain/describeForm.ts"

describe("describe form rules (§4.1, §8)", () => {
  it("uses only the first 1,000 characters of keywords and context", () => {
    expect(keywordsUsed("k".repeat(1500))).toBe("k".repeat(1000))
    expect(contextUsed(`${"c".repeat(999)}😀tail`)).toBe(`${"c".repeat(999)}😀`)
    expect(keywordsUsed(undefined)).toBe("")
    expect(contextUsed("  a red bicycle  ")).toBe("a red bicycle")
  })

  it("never cuts a character in half", () => {
    expect(firstCharacters("😀😀😀", 2)).toBe("😀😀")
    expect(firstCharacters("abc", 5)).toBe("abc")
  })

  it("defaults the language to English and refuses more than 64 characters", () => {
    expect(languageUsed(undefined)).toEqual(Either.right("en"))
    expect(languageUsed("   ")).toEqual(Either.right("en"))
    expect(languageUsed("pt-BR")).toEqual(Either.right("pt-BR"))
    expect(languageUsed(" French ")).toEqual(Either.right("French"))
    expect(languageUsed("x".repeat(64))).toEqual(Either.right("x".repeat(64)))
    expect(Either.isLeft(languageUsed("x".repeat(65)))).toBe(true)
  })
})
