/**
 * The shape of one language's wording for the offline describer, and the small helpers the tables in
 * `offlineTemplates/` share.
 */
import type { ColourFamily, NamedColour, Shade } from "./colourPalette.ts"
import type { ImageFormat } from "./describe.ts"
import type { Brightness, ImageFacts, Orientation, Transparency } from "./imageFacts.ts"

export interface Templates {
  /** One palette colour, e.g. `dark blue`. */
  readonly colour: (colour: NamedColour) => string
  /** Joins the last two items of a list: `a, b and c`. */
  readonly and: string
  /** A short label without a full stop: `Wide dark blue and white image`. */
  readonly title: (facts: ImageFacts, colours: string | undefined) => string
  /**
   * For a reader who cannot see the image: its look in one sentence, nothing a screen reader reads
   * as noise (no pixel counts, no file format). `colours` is the joined list, undefined when
   * nothing is visible.
   */
  readonly alternativeText: (facts: ImageFacts, colours: string | undefined) => string
  /** For a reader who sees it: what a glance does not tell, the file format and frames. */
  readonly caption: (facts: ImageFacts, colours: string | undefined) => string
  /** A number of pixels, or a `width × height` pair: `1000 × 667 pixels`. */
  readonly pixels: (count: string) => string
  /** One- or two-word facts, for a keywords field or a field asking for that one fact. */
  readonly tags: Tags
}

export interface Tags {
  readonly orientation: Readonly<Record<Orientation, string>>
  readonly brightness: Readonly<Record<Brightness, string>>
  readonly animated: string
  readonly transparent: string
  /** Answers a field asking whether the image is animated: `animated (12 frames)`, `not animated`. */
  readonly animation: (frames: number) => string
  readonly transparency: Readonly<Record<Transparency, string>>
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

export const fullyTransparent = (facts: ImageFacts): boolean => facts.transparency === "full"

/** The same in every language. */
export const formatName: Readonly<Record<ImageFormat, string>> = { jpeg: "JPEG", png: "PNG", webp: "WebP", gif: "GIF" }

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
