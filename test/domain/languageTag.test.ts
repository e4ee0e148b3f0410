import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as fs from "node:fs"
import { languageNames, languageNamesFile } from "../../scripts/languageNames.ts"
import { languageTag } from "../../src/domain/languageTag.ts"

describe("languageTag", () => {
  it.each([
    ["en", "en"], ["pt-BR", "pt-BR"], ["pt_br", "pt-BR"], ["FR", "fr"], ["fra", "fr"], ["deu", "de"], ["zh-CN", "zh-CN"],
    ["zh-hant-tw", "zh-Hant-TW"], ["es-419", "es-419"], [" ja ", "ja"]
  ] as const)("code %j -> %s", (code, tag) => {
    expect(languageTag(code)).toBe(tag)
  })

  it.each([
    ["fre", "fr"], ["ger", "de"], ["dut", "nl"], ["chi", "zh"], ["cze", "cs"], ["gre", "el"], ["per", "fa"], ["rum", "ro"],
    ["wel", "cy"], ["alb", "sq"], ["arm", "hy"], ["baq", "eu"], ["bur", "my"], ["geo", "ka"], ["ice", "is"], ["mac", "mk"],
    ["mao", "mi"], ["may", "ms"], ["slo", "sk"], ["tib", "bo"], ["FRE_ca", "fr-CA"], ["ger-CH", "de-CH"]
  ] as const)("ISO 639-2's bibliographic code %j -> %s, as its terminology code", (code, tag) => {
    expect(languageTag(code)).toBe(tag)
  })

  it.each([
    ["French", "fr"], ["FRENCH", "fr"], ["français", "fr"], ["Francais", "fr"], ["German", "de"], ["Deutsch", "de"],
    ["Japanese", "ja"], ["日本語", "ja"], ["Chinese", "zh"], ["Simplified Chinese", "zh-Hans"],
    ["Brazilian Portuguese", "pt-BR"], ["Portuguese (Brazil)", "pt-BR"], ["Swiss German", "gsw"], ["Norwegian Bokmål", "nb"],
    ["Filipino", "fil"], ["Cantonese", "yue"], ["Hawaiian", "haw"], ["Tagalog", "tl"], ["Romanian", "ro"], ["Yiddish", "yi"],
    ["Dari", "prs"], ["Syriac", "syr"], ["Hmong", "hmn"]
  ] as const)("name %j -> %s", (name, tag) => {
    expect(languageTag(name)).toBe(tag)
  })

  it.each(["Elvish", "xx", "zz-ZZ", "constructor", "toString", "Dothraki!", "12"])("%j is undetermined: und", (unknown) => {
    expect(languageTag(unknown)).toBe("und")
  })

  it("knows the names this runtime's ICU gives (a change: `bun scripts/languageNames.ts` writes them)", () => {
    expect(JSON.parse(fs.readFileSync(languageNamesFile, "utf8"))).toStrictEqual(languageNames())
  })

  it.prop("always a well-formed BCP 47 tag", [fc.string({ maxLength: 64 })], ([language]) => {
    expect(Intl.getCanonicalLocales(languageTag(language))).toStrictEqual([languageTag(language)])
  })
})
