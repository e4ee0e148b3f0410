/**
 * A requested `language` (§4.1: a code such as `pt-BR` or a name such as `French`) as a BCP 47 tag,
 * the `Content-Language` of a text a model wrote in it. The rule (README, "Behaviour the spec leaves
 * open"):
 * - a tag of a known language, in its canonical form: `pt_br` -> `pt-BR`, `FRA` -> `fr`;
 * - a language's name in English or in itself, any case, accents optional: `French`, `français` ->
 *   `fr`, `Brazilian Portuguese` -> `pt-BR`; failing the whole, the first word that names one:
 *   `Swiss German` -> `de`;
 * - anything else -> `und` (BCP 47 "undetermined"): the model was asked for a language we cannot
 *   name, and claiming one would be a guess.
 * Names come from the runtime's ICU data (`Intl.DisplayNames`), so no table to keep up to date.
 */

export const undetermined = "und"

/** Primary subtag of 2 or 3 letters (ISO 639), then subtags; `_` is accepted for `-`. */
const tagForm = /^[a-z]{2,3}(?:[-_][a-z0-9]{1,8})*$/i

const english = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" })
const englishStandard = new Intl.DisplayNames(["en"], { type: "language", fallback: "none", languageDisplay: "standard" })

/** Lower case, no accents, punctuation as spaces: `Portuguese (Brazil)` -> `portuguese brazil`. */
const fold = (text: string): string =>
  text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/[^\p{L}]+/gu, " ").trim()

const canonical = (tag: string): string | undefined => {
  try {
    return Intl.getCanonicalLocales(tag.replaceAll("_", "-"))[0]
  } catch {
    return undefined
  }
}

const letters = "abcdefghijklmnopqrstuvwxyz"
const twoLetterCodes = [...letters].flatMap((a) => [...letters].map((b) => `${a}${b}`))

/** Regional and script forms people name (`Brazilian Portuguese`, `Simplified Chinese`). */
const variants = [
  "pt-BR", "pt-PT", "fr-CA", "fr-CH", "de-AT", "de-CH", "es-ES", "es-MX", "es-419", "en-US", "en-GB", "en-AU", "en-CA",
  "zh-Hans", "zh-Hant", "nl-BE", "sr-Latn", "sr-Cyrl"
]

let namesTable: ReadonlyMap<string, string> | undefined

/**
 * Folded name -> tag; built on first use. Loading ICU's data for some 200 languages takes about
 * 0.1 s, so a describer that needs it calls `loadLanguageNames` as it is built, not on a request.
 */
const names = (): ReadonlyMap<string, string> => {
  if (namesTable !== undefined) return namesTable
  const table = new Map<string, string>()
  const add = (name: string | undefined, tag: string) => {
    const key = name === undefined ? "" : fold(name)
    if (key !== "" && !table.has(key)) table.set(key, tag)
  }
  for (const tag of [...twoLetterCodes.filter((code) => english.of(code) !== undefined), ...variants]) {
    add(english.of(tag), tag)
    add(englishStandard.of(tag), tag)
    add(new Intl.DisplayNames([tag], { type: "language", fallback: "none" }).of(tag), tag)
  }
  namesTable = table
  return table
}

export const languageTag = (requested: string): string => {
  const trimmed = requested.trim()
  if (tagForm.test(trimmed)) {
    const tag = canonical(trimmed)
    const primary = tag?.split("-")[0]
    return tag !== undefined && primary !== undefined && english.of(primary) !== undefined ? tag : undetermined
  }
  const folded = fold(trimmed)
  const table = names()
  return table.get(folded) ?? folded.split(" ").map((word) => table.get(word)).find((tag) => tag !== undefined) ?? undetermined
}

export const loadLanguageNames = (): void => {
  names()
}
