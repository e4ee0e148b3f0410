/**
 * The offline describer's answer: per requested field, what the measured `ImageFacts` (and, for a
 * keywords field, the client's keywords) truly answer, or an empty string when the field asks for
 * something it cannot know (a price, a mood, a product name). The client's context is never read:
 * with no model, nothing can honestly be chosen from it, and echoing it would publish an
 * integrator's instructions. Pure and deterministic.
 */
import type { DescribeResult, SchemaFields } from "./describe.ts"
import type { ImageFacts } from "./imageFacts.ts"
import { limits } from "./limits.ts"
import { fieldKind, type FieldKind } from "./offlineFieldKind.ts"
import { resolveLanguage } from "./offlineLanguage.ts"
import { templates } from "./offlineTemplates.ts"
import { formatName, joinList } from "./offlineWording.ts"

export interface OfflineTextInput {
  readonly facts: ImageFacts
  readonly fields: SchemaFields
  /** Raw `keywords` form field (comma-separated). */
  readonly keywords: string
  readonly language: string
}

/**
 * Half of §2.2's ~1,500 words for the whole answer, shared evenly by the fields, keeps every answer
 * far below the limit; only a keywords field grows with the client's text, so only it is fitted.
 */
const answerWords = Math.floor(limits.answerWords / 2)

/** Echoed keywords are clipped so one long keyword cannot crowd out the others. */
const maxKeywords = 10
const keywordWords = 5
const keywordChars = 60

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

  const write = (kind: FieldKind | undefined): string => {
    switch (kind) {
      case "title":
        return t.title(facts, colours)
      case "alternativeText":
        return t.alternativeText(facts, colours)
      case "caption":
        return t.caption(facts, colours)
      case "keywords":
        return fitList(budget, tags)
      case "colours":
        return colourNames.join(", ")
      case "orientation":
        return t.tags.orientation[facts.orientation]
      case "brightness":
        return facts.brightness === undefined ? "" : t.tags.brightness[facts.brightness]
      case "animation":
        return t.tags.animation(facts.frames)
      case "transparency":
        return t.tags.transparency[facts.transparency]
      case "size":
        return t.pixels(`${facts.width} × ${facts.height}`)
      case "width":
        return t.pixels(String(facts.width))
      case "height":
        return t.pixels(String(facts.height))
      case "format":
        return formatName[facts.format]
      case undefined:
        return ""
    }
  }

  // fromEntries defines own data properties, so `constructor` or `prototype` are plain keys.
  return Object.fromEntries(fields.map((field) => [field.name, write(fieldKind(field))]))
}
