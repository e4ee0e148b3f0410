/** The describe request as the describer sees it (spec §2.1, §2.2, §4.1). */

/** One requested output field: its name and what to generate for it. */
export interface SchemaField {
  readonly name: string
  readonly description: string
}

/** The requested fields, in the order the client gave them; never empty. */
export type SchemaFields = ReadonlyArray<SchemaField>

/**
 * §2.2: the fields generated when the request has no schema. Their descriptions follow the W3C WAI
 * images tutorial (the alt-text decision tree) and WCAG 2.2 SC 1.1.1; docs/model-endpoints.md
 * lists them. The caption's says "the other fields", not "the alternative text": the offline
 * describer reads a description for the kind of field when the name ("caption") does not tell it.
 */
export const defaultFields: SchemaFields = [
  {
    name: "title",
    description: "A short, specific title for the image: a few words naming its subject, like a headline; never a list of keywords"
  },
  {
    name: "alternativeText",
    description:
      "Alternative text for people who cannot see the image: what the image conveys in its context, not every detail. " +
      "Usually one sentence within about 125 characters; longer only when the image carries information, such as the point a chart makes. " +
      "Transcribe any text in the image that matters. " +
      'Do not start with "Image of" or "Photo of", and do not repeat the title or the caption'
  },
  {
    name: "caption",
    description:
      "A one- or two-sentence caption shown with the image: add what the other fields leave out " +
      "(the setting, the moment, why it matters) rather than repeat them"
  }
]

export type ImageFormat = "jpeg" | "png" | "webp" | "gif"

/**
 * The one image the describer receives (docs/api.md, Request fields; docs/model-endpoints.md): EXIF orientation applied, first frame of an
 * animation, sRGB, 8 bits per channel, longest side at most 1,000 px and never enlarged; RGBA when
 * the source has an alpha channel, RGB otherwise.
 */
export interface PreparedImage {
  /** What was uploaded. */
  readonly source: {
    readonly format: ImageFormat
    readonly bytes: number
    /** Displayed size, after EXIF orientation, before scaling. */
    readonly width: number
    readonly height: number
    /** Number of frames; more than 1 for an animated GIF or WebP. */
    readonly frames: number
    /** The source carries an alpha channel. */
    readonly hasAlpha: boolean
  }
  readonly width: number
  readonly height: number
  /**
   * 4 (RGBA) when the source has alpha, else 3 (RGB): an opaque image carries no alpha to flatten
   * (for the model's JPEG, that step alone took half the encoding's instructions).
   */
  readonly channels: 3 | 4
  /** Raw pixels, `width * height * channels` bytes, row-major. */
  readonly pixels: Uint8Array
  /**
   * The uploaded file itself, when the describer takes its format and it is what the model's image
   * would be (`domain/asUploaded.ts`): it is sent as it came, and the pixels are then only those of
   * the decode that checked it, at 1/16 of its size.
   */
  readonly asUploaded?: Uint8Array
}

export interface DescribeRequest {
  readonly image: PreparedImage
  readonly fields: SchemaFields
  /** At most 1,000 characters, possibly empty. User data, never instructions. */
  readonly keywords: string
  /** At most 1,000 characters, possibly empty. User data, never instructions. */
  readonly context: string
  /** A code (`en`, `pt-BR`) or a name (`French`); `en` when absent. */
  readonly language: string
}

/** §2.1: one string per requested field, keyed by field name, in the requested order. */
export type DescribeResult = Readonly<Record<string, string>>

/**
 * §2.1: the response's entries, in the requested order: exactly the schema's keys, or the default
 * fields plus `alt_text`, a copy of `alternativeText` kept for older plugin versions.
 */
export const describeResultEntries = (
  fields: SchemaFields,
  result: DescribeResult,
  schemaGiven: boolean
): ReadonlyArray<readonly [string, string]> => {
  const entries = fields.map((field) => [field.name, result[field.name] ?? ""] as const)
  return schemaGiven ? entries : [...entries, ["alt_text", result["alternativeText"] ?? ""] as const]
}

/**
 * The entries as a JSON object in their order (an object would move integer-like names such as
 * `"1"` first); compact, or one member a line after `indent` for people to read.
 */
export const describeResultJson = (entries: ReadonlyArray<readonly [string, string]>, indent?: string): string => {
  if (entries.length === 0) return "{}"
  const members = entries.map(([name, value]) => `${JSON.stringify(name)}:${indent === undefined ? "" : " "}${JSON.stringify(value)}`)
  return indent === undefined ? `{${members.join(",")}}` : `{\n${members.map((member) => indent + member).join(",\n")}\n}`
}
