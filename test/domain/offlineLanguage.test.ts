import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { offlineLanguages, resolveLanguage } from "../../src/domain/offlineLanguage.ts"

describe("resolveLanguage", () => {
  it.each([
    ["en", "en"], ["en-US", "en"], ["fr", "fr"], ["FR", "fr"], ["fr-CA", "fr"], ["fra", "fr"],
    ["de", "de"], ["de-DE", "de"], ["ger", "de"], ["es", "es"], ["es-419", "es"],
    ["pt", "pt"], ["pt-BR", "pt"], ["pt_PT", "pt"], ["it", "it"], ["nl", "nl"], ["nl-BE", "nl"]
  ] as const)("code %s -> %s", (code, language) => {
    expect(resolveLanguage(code)).toBe(language)
  })

  it.each([
    ["French", "fr"], ["FRENCH", "fr"], ["français", "fr"], [" french ", "fr"], ["German", "de"], ["Deutsch", "de"],
    ["Spanish", "es"], ["Español", "es"], ["Portuguese", "pt"], ["Brazilian Portuguese", "pt"],
    ["Portuguese (Brazil)", "pt"], ["Italian", "it"], ["Dutch", "nl"], ["Nederlands", "nl"], ["English", "en"]
  ] as const)("name %s -> %s", (name, language) => {
    expect(resolveLanguage(name)).toBe(language)
  })

  it.each(["ja", "Japanese", "zz-ZZ", "", "Klingon", "constructor", "toString"])("falls back to English for %j", (unknown) => {
    expect(resolveLanguage(unknown)).toBe("en")
  })

  it.prop("always resolves to a supported language", [fc.string({ maxLength: 64 })], ([language]) => {
    expect(offlineLanguages).toContain(resolveLanguage(language))
  })
})
