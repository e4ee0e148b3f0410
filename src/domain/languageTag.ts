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
 * Names come from ICU's data (`Intl.DisplayNames`) through `languageNames.json`, written by
 * `bun scripts/languageNames.ts` and checked against the runtime's ICU by the tests: asking ICU
 * for each language's name in that language loads some 200 locales' data, 8 MiB resident for the
 * life of the process (docs/BENCHMARKS.md, memory at rest).
 */
import languageNames from "./languageNames.json"

export const undetermined = "und"

/** Primary subtag of 2 or 3 letters (ISO 639), then subtags; `_` is accepted for `-`. */
const tagForm = /^[a-z]{2,3}(?:[-_][a-z0-9]{1,8})*$/i

const english = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" })

/** Lower case, no accents, punctuation as spaces: `Portuguese (Brazil)` -> `portuguese brazil`. */
export const fold = (text: string): string =>
  text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/[^\p{L}]+/gu, " ").trim()

/**
 * ISO 639-2's bibliographic codes, which BCP 47 never uses and ICU leaves as they are (`fre`
 * stayed `fre`), as their terminology codes, which it makes the two-letter ones (`fra` -> `fr`).
 */
const bibliographic: ReadonlyMap<string, string> = new Map([
  ["alb", "sqi"], ["arm", "hye"], ["baq", "eus"], ["bur", "mya"], ["chi", "zho"], ["cze", "ces"], ["dut", "nld"],
  ["fre", "fra"], ["geo", "kat"], ["ger", "deu"], ["gre", "ell"], ["ice", "isl"], ["mac", "mkd"], ["mao", "mri"],
  ["may", "msa"], ["per", "fas"], ["rum", "ron"], ["slo", "slk"], ["tib", "bod"], ["wel", "cym"]
])

const canonical = (tag: string): string | undefined => {
  const [primary = "", ...rest] = tag.split(/[-_]/)
  const terminology = bibliographic.get(primary.toLowerCase())
  try {
    return Intl.getCanonicalLocales([terminology ?? primary, ...rest].join("-"))[0]
  } catch {
    return undefined
  }
}

/** Folded name -> tag. */
const names: ReadonlyMap<string, string> = new Map(Object.entries(languageNames))

export const languageTag = (requested: string): string => {
  const trimmed = requested.trim()
  if (tagForm.test(trimmed)) {
    const tag = canonical(trimmed)
    const primary = tag?.split("-")[0]
    return tag !== undefined && primary !== undefined && english.of(primary) !== undefined ? tag : undetermined
  }
  const folded = fold(trimmed)
  return names.get(folded) ?? folded.split(" ").map((word) => names.get(word)).find((tag) => tag !== undefined) ?? undetermined
}
