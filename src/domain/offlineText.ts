/**
 * The offline describer's answer: one honest text per requested field, chosen from the field's name
 * and description, written from measured `ImageFacts` and the client's keywords and context (always
 * attributed to the client, never presented as something seen). Pure and deterministic.
 */
import type { DescribeResult, SchemaField, SchemaFields } from "./describe.ts"
import type { ImageFacts } from "./imageFacts.ts"
import { limits } from "./limits.ts"
import { resolveLanguage } from "./offlineLanguage.ts"
import { templates } from "./offlineTemplates.ts"
import { joinList } from "./offlineWording.ts"

export interface OfflineTextInput {
  readonly facts: ImageFacts
  readonly fields: SchemaFields
  /** Raw `keywords` form field (comma-separated). */
  readonly keywords: string
  /** Raw `context` form field. */
  readonly context: string
  readonly language: string
}

/** What a field asks for; anything unrecognised gets the caption, the most complete honest text. */
export type FieldKind = "title" | "alternativeText" | "caption" | "keywords" | "colours" | "size"

/**
 * Half of §2.2's ~1,500 words for the whole answer, shared evenly by the fields, keeps every answer
 * far below the limit. A field's main text (at most ~30 words) is always kept; attributed keywords
 * and context are added only while they fit.
 */
const answerWords = Math.floor(limits.answerWords / 2)

/** Echoed client text is clipped so one long keyword or context cannot crowd out the facts. */
const maxKeywords = 10
const keywordWords = 5
const keywordChars = 60
const contextWords = 30
const contextChars = 200
const titleKeywords = 3

/**
 * Words (regular-expression fragments, matched on `fold`ed text) that reveal what a field asks for,
 * in English and the offline languages. Order matters: `keywordsTitle` is keywords, `altTitle` a title.
 */
const kindWords: ReadonlyArray<readonly [FieldKind, ReadonlyArray<string>]> = [
  ["keywords", [
    "key ?words?", "key ?phrases?", "tags?", "hashtags?", "labels?", "mots? cles?", "schlagwort\\w*", "stichwort\\w*",
    "palabras? claves?", "etiquetas?", "palavras? chaves?", "parole chiave", "trefwoord\\w*"
  ]],
  ["colours", ["colou?rs?", "palette", "couleurs?", "farben?", "colores", "colori", "colore", "cor", "cores", "kleur\\w*"]],
  ["title", ["titles?", "headlines?", "headings?", "titre", "titel", "titulo", "titolo"]],
  ["alternativeText", ["alt", "alternative?", "alternatif", "alternativo", "accessibility", "screen ?readers?"]],
  ["size", [
    "size", "dimensions?", "resolution", "width", "height", "orientation", "aspect", "taille", "tamano", "tamanho",
    "afmeting\\w*"
  ]]
]

const kindPatterns = kindWords.map(([kind, words]) => [kind, new RegExp(`\\b(?:${words.join("|")})\\b`)] as const)

/** `alternativeText`, `SEOTitle`, `alt_text`, `Mots-clés` -> `alternative text`, `seo title`, `alt text`, `mots cles`. */
const fold = (text: string): string =>
  text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")

const kindIn = (text: string): FieldKind | undefined => {
  const folded = fold(text)
  return kindPatterns.find(([, pattern]) => pattern.test(folded))?.[0]
}

/** The name is the client's most deliberate signal, so it wins over the description. */
export const fieldKind = (field: SchemaField): FieldKind => kindIn(field.name) ?? kindIn(field.description) ?? "caption"

export const countWords = (text: string): number => text.split(/\s+/).filter((word) => word !== "").length

/**
 * Control characters, line breaks and bidirectional overrides become spaces: echoed client text stays
 * one plain line and cannot reorder the sentence around it.
 */
const clean = (text: string): string => text.replace(/[\p{Cc}\s\u202A-\u202E\u2066-\u2069]+/gu, " ").trim()

const clip = (text: string, maxWords: number, maxChars: number): string => {
  const kept = text.split(" ").slice(0, maxWords).join(" ").slice(0, maxChars).trimEnd()
  return kept.length < text.length ? `${kept}…` : kept
}

/** §4.1 keywords: comma-separated; blanks and case-insensitive repeats dropped, order kept. */
export const parseKeywords = (raw: string): ReadonlyArray<string> => {
  const keywords: Array<string> = []
  const seen = new Set<string>()
  for (const part of raw.slice(0, limits.keywordsLength).split(",")) {
    const keyword = clip(clean(part), keywordWords, keywordChars)
    const key = keyword.toLowerCase()
    if (keyword === "" || seen.has(key)) continue
    seen.add(key)
    keywords.push(keyword)
    if (keywords.length === maxKeywords) break
  }
  return keywords
}

export const contextExcerpt = (raw: string): string =>
  clip(clean(raw.slice(0, limits.contextLength)), contextWords, contextChars)

/** `main`, then each extra sentence that still fits the field's word budget. */
const fit = (budget: number, main: string, extras: ReadonlyArray<string | undefined>): string =>
  extras.reduce<string>(
    (text, extra) => (extra !== undefined && countWords(text) + countWords(extra) <= budget ? `${text} ${extra}` : text),
    main
  )

/** Items, in order, while they fit the budget; the first always. */
const fitList = (budget: number, items: ReadonlyArray<string>): string => {
  const kept: Array<string> = []
  for (const item of items) {
    if (kept.length > 0 && countWords([...kept, item].join(", ")) > budget) break
    kept.push(item)
  }
  return kept.join(", ")
}

/** One text per requested field, keyed by field name in the requested order (§2.1). */
export const writeFields = (input: OfflineTextInput): DescribeResult => {
  const { facts, fields } = input
  const t = templates[resolveLanguage(input.language)]
  const colourNames = facts.colours.map(t.colour)
  const colours = colourNames.length === 0 ? undefined : joinList(colourNames, t.and)
  const keywords = parseKeywords(input.keywords)
  const excerpt = contextExcerpt(input.context)
  const tagged = keywords.length === 0 ? undefined : t.tagged(keywords.join(", "))
  const context = excerpt === "" ? undefined : t.context(excerpt)
  const summary = t.summary(facts, colours)
  const title = t.title(facts, colours)
  const budget = Math.floor(answerWords / Math.max(1, fields.length))

  const factTags = [
    t.tags.orientation[facts.orientation],
    ...colourNames,
    facts.brightness && t.tags.brightness[facts.brightness],
    facts.frames > 1 && t.tags.animated,
    facts.transparency !== "opaque" && t.tags.transparent
  ].filter((tag): tag is string => typeof tag === "string")
  const clientKeys = new Set(keywords.map((keyword) => keyword.toLowerCase()))
  const tags = [...keywords, ...factTags.filter((tag) => !clientKeys.has(tag.toLowerCase()))]

  const write = (kind: FieldKind): string => {
    switch (kind) {
      case "title":
        return keywords.length === 0
          ? title
          : fit(budget, title, [`(${t.titleTags(keywords.slice(0, titleKeywords).join(", "))})`])
      case "alternativeText":
        return fit(budget, summary, [tagged])
      case "caption":
        return fit(budget, summary, [tagged, context])
      case "keywords":
        return fitList(budget, tags)
      case "colours":
        return t.colours(colours)
      case "size":
        return t.size(facts)
    }
  }

  // fromEntries defines own data properties, so `constructor` or `prototype` are plain keys.
  return Object.fromEntries(fields.map((field) => [field.name, write(fieldKind(field))]))
}
