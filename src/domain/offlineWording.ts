/**
 * The shape of one language's wording for the offline describer, and the small helpers the tables in
 * `offlineTemplates.ts` share.
 */
import type { ColourFamily, NamedColour, Shade } from "./colourPalette.ts"
import type { Brightness, ImageFacts, Orientation } from "./imageFacts.ts"

export interface Templates {
  /** One palette colour, e.g. `dark blue`. */
  readonly colour: (colour: NamedColour) => string
  /** Joins the last two items of a list: `a, b and c`. */
  readonly and: string
  /** The factual sentence. `colours` is the joined colour list, undefined when nothing is visible. */
  readonly summary: (facts: ImageFacts, colours: string | undefined) => string
  /** A short title without a full stop. */
  readonly title: (facts: ImageFacts, colours: string | undefined) => string
  /** `1000 by 667 pixels, landscape`. */
  readonly size: (facts: ImageFacts) => string
  /** `Dominant colours: dark blue and white.`, or what to say when nothing is visible. */
  readonly colours: (colours: string | undefined) => string
  /** The client's keywords, attributed to the client: `Tagged: beach, sunset.` */
  readonly tagged: (keywords: string) => string
  /** The same inside a title's parentheses: `tagged: beach, sunset`. */
  readonly titleTags: (keywords: string) => string
  /** The client's context, attributed to the client and quoted. */
  readonly context: (excerpt: string) => string
  /** One- or two-word facts for a keywords field. */
  readonly tags: Tags
}

export interface Tags {
  readonly orientation: Readonly<Record<Orientation, string>>
  readonly brightness: Readonly<Record<Brightness, string>>
  readonly animated: string
  readonly transparent: string
}

/** A phrase, or a falsy value for a fact that does not apply. */
export type Part = string | false | undefined

const present = (part: Part): part is string => typeof part === "string" && part !== ""

export const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1)

/** Comma-separated phrases as one sentence. */
export const sentence = (parts: ReadonlyArray<Part>): string => `${capitalise(parts.filter(present).join(", "))}.`

/** Space-separated words as a title. */
export const words = (parts: ReadonlyArray<Part>): string => capitalise(parts.filter(present).join(" "))

/** `a`, `a and b`, `a, b and c`. */
export const joinList = (items: ReadonlyArray<string>, and: string): string =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} ${and} ${items.at(-1) ?? ""}`

export const isAnimated = (facts: ImageFacts): boolean => facts.frames > 1

/** The transparency phrase applies only to see-through images. */
export const transparencyWord = (
  facts: ImageFacts,
  phrases: { readonly partial: string; readonly full: string }
): string | undefined => (facts.transparency === "opaque" ? undefined : phrases[facts.transparency])

/** Colour names with the shade written the way the language writes it (`dark blue`, `bleu foncé`). */
export const colourNames =
  (
    names: Readonly<Record<ColourFamily, string>>,
    shaded: (name: string, shade: Exclude<Shade, "normal">) => string
  ) =>
  ({ family, shade }: NamedColour): string =>
    shade === "normal" ? names[family] : shaded(names[family], shade)
