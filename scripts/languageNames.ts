/**
 * The names `languageTag` recognises (src/domain/languageTag.ts), from the runtime's ICU data:
 * each two-letter language ICU names, the regional and script forms people name, then the
 * three-letter ones (Filipino, Cantonese), each under its English name, its English standard name
 * (`Portuguese (Brazil)`) and its name in itself (`français`), folded. The first tag to claim a
 * name keeps it.
 *
 *   bun scripts/languageNames.ts    writes src/domain/languageNames.json
 *
 * test/domain/languageTag.test.ts fails when the file differs from what this runtime's ICU gives.
 */
import * as fs from "node:fs"
import { fold } from "../src/domain/languageTag.ts"

const letters = "abcdefghijklmnopqrstuvwxyz"
const twoLetterCodes = [...letters].flatMap((a) => [...letters].map((b) => `${a}${b}`))
/** Languages with no two-letter code (Filipino `fil`, Cantonese `yue`), after those that have one. */
const threeLetterCodes = twoLetterCodes.flatMap((ab) => [...letters].map((c) => `${ab}${c}`))

/** Regional and script forms people name (`Brazilian Portuguese`, `Simplified Chinese`). */
const variants = [
  "pt-BR", "pt-PT", "fr-CA", "fr-CH", "de-AT", "de-CH", "es-ES", "es-MX", "es-419", "en-US", "en-GB", "en-AU", "en-CA",
  "zh-Hans", "zh-Hant", "nl-BE", "sr-Latn", "sr-Cyrl"
]

/** Folded name -> tag, sorted by name so that the file's changes read as changes. */
export const languageNames = (): Record<string, string> => {
  const english = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" })
  const englishStandard = new Intl.DisplayNames(["en"], { type: "language", fallback: "none", languageDisplay: "standard" })
  const table = new Map<string, string>()
  const add = (name: string | undefined, tag: string) => {
    const key = name === undefined ? "" : fold(name)
    if (key !== "" && !table.has(key)) table.set(key, tag)
  }
  // Only a code that is its own canonical form: ICU names retired aliases (`mo` and `drw`, for
  // Romanian and Dari, whose codes are `ro` and `prs`) as what they stand for. A three-letter one
  // must be its own language too (`cld`, a dialect, is named "Syriac", which is `syr`).
  const named = (codes: ReadonlyArray<string>, ownLanguage: boolean) =>
    codes.filter((code) =>
      english.of(code) !== undefined && Intl.getCanonicalLocales(code)[0] === code &&
      (!ownLanguage || new Intl.Locale(code).maximize().language === code)
    )
  for (const tag of [...named(twoLetterCodes, false), ...variants, ...named(threeLetterCodes, true)]) {
    add(english.of(tag), tag)
    add(englishStandard.of(tag), tag)
    add(new Intl.DisplayNames([tag], { type: "language", fallback: "none" }).of(tag), tag)
  }
  return Object.fromEntries([...table].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

export const languageNamesFile = new URL("../src/domain/languageNames.json", import.meta.url)

if (import.meta.main) {
  fs.writeFileSync(languageNamesFile, `${JSON.stringify(languageNames(), null, 1)}\n`)
}
