/**
 * The languages the offline describer writes (spec §4.1 `language`: a code such as `pt-BR` or a name
 * such as `French`). It has no model to translate with, only template tables, so it covers a small
 * set; any other language falls back to English rather than failing the request, because a
 * described image in English serves the client better than an error it cannot fix.
 */
export const offlineLanguages = ["en", "fr", "de", "es", "pt", "it", "nl"] as const

export type OfflineLanguage = (typeof offlineLanguages)[number]

/** The `Content-Language` of each table (BCP 47): the Portuguese one writes Brazilian forms. */
export const offlineLanguageTag: Readonly<Record<OfflineLanguage, string>> = {
  en: "en", fr: "fr", de: "de", es: "es", pt: "pt-BR", it: "it", nl: "nl"
}

/** ISO 639-1 and 639-2 (both B and T forms) codes, matched on the primary subtag. */
const codes: Readonly<Record<string, OfflineLanguage>> = {
  en: "en", eng: "en",
  fr: "fr", fra: "fr", fre: "fr",
  de: "de", deu: "de", ger: "de",
  es: "es", spa: "es",
  pt: "pt", por: "pt",
  it: "it", ita: "it",
  nl: "nl", nld: "nl", dut: "nl"
}

/** English names and the languages' own names, without diacritics. */
const names: Readonly<Record<string, OfflineLanguage>> = {
  english: "en",
  french: "fr", francais: "fr",
  german: "de", deutsch: "de",
  spanish: "es", espanol: "es", castellano: "es", castilian: "es",
  portuguese: "pt", portugues: "pt", brazilian: "pt",
  italian: "it", italiano: "it",
  dutch: "nl", nederlands: "nl", flemish: "nl", vlaams: "nl"
}

const languageTag = /^[a-z]{2,3}(?:[-_][a-z0-9]{1,8})*$/

/** Lower case without diacritics, so `Français`, `FRANCAIS` and `francais` are one name. */
const fold = (text: string): string => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().trim()

/** Own keys only: `constructor` is not a language. */
const lookup = (table: Readonly<Record<string, OfflineLanguage>>, key: string): OfflineLanguage | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined

/**
 * `fr`, `fr-CA`, `French`, `français` -> `fr`; `pt-BR`, `Brazilian Portuguese` -> `pt`.
 * Anything else (unknown, empty) -> `en`, the documented fallback above.
 */
export const resolveLanguage = (language: string): OfflineLanguage => {
  const folded = fold(language)
  if (languageTag.test(folded)) return lookup(codes, folded.split(/[-_]/)[0] ?? "") ?? "en"
  // Any known word wins, so `Portuguese (Brazil)` and `Brazilian Portuguese` both resolve.
  for (const word of folded.split(/[^a-z]+/)) {
    const found = lookup(names, word)
    if (found !== undefined) return found
  }
  return "en"
}
