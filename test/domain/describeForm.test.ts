import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { contextUsed, firstCharacters, formAsUsed, keywordsUsed, languageUsed } from "../../src/domain/describeForm.ts"
import { formOf, formText } from "../support/describeForm.ts"

describe("describe form rules (§4.1, §8)", () => {
  it("an empty file is no file and a blank schema no schema, as browsers send empty inputs; a schema cut at its cap stays (it is refused)", () => {
    const image = { bytes: new Uint8Array([1]), size: 1 }
    expect(formAsUsed(formOf({ image: { bytes: new Uint8Array(0), size: 0 }, schema: formText(" \n ") }))).toEqual(formOf({}))
    expect(formAsUsed(formOf({ image, schema: formText("{}") }))).toEqual(formOf({ image, schema: formText("{}") }))
    const cut = { text: " ", truncated: true }
    expect(formAsUsed(formOf({ schema: cut })).schema).toEqual(cut)
  })

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
