/** The describe form (spec §4.1, §8) and the rules of its text fields. */
import * as Either from "effect/Either"
import { LanguageTooLong } from "./errors.ts"
import { characters } from "./schemaFields.ts"
import { limits } from "./limits.ts"

/** A text field; `truncated` when the part was longer than its cap (`text` is its first bytes). */
export interface FormText {
  readonly text: string
  readonly truncated: boolean
}

/** The image part: `size` counts all its bytes, `bytes` keeps at most `limits.imageBytes + 1`. */
export interface FormFile {
  readonly bytes: Uint8Array
  readonly size: number
}

const KiB = 1024

/**
 * Bytes kept of each field. The image keeps one byte over §8's 10 MB: enough for the caller to
 * answer 413 after the schema check (§4.1 check 6). A schema at the limits of §2.2, 20 fields of
 * 64 + 1,000 characters, is about 125 KiB even with every character `\u`-escaped, so 256 KiB leaves
 * room for layout; past it the text is truncated and the schema is the caller's to refuse. The
 * domain uses 1,000 characters of keywords and context and refuses a language over 64: 64 KiB
 * (at least 16,384 characters) is plenty to do either. An `imageUrl` past 8 KiB (browsers and
 * servers commonly stop near there) is truncated, and refused as a URL too long to fetch.
 */
export const formCaps = {
  image: limits.imageBytes + 1,
  imageUrl: 8 * KiB,
  schema: 256 * KiB,
  keywords: 64 * KiB,
  context: 64 * KiB,
  language: 64 * KiB
} as const

/** The fields of §4.1 the service reads; for each, the first part with that name. */
export interface DescribeForm {
  readonly image: FormFile | undefined
  /** Where to fetch the image from when there is no `image` file (the file wins if both are given). */
  readonly imageUrl: FormText | undefined
  readonly schema: FormText | undefined
  readonly keywords: FormText | undefined
  readonly context: FormText | undefined
  readonly language: FormText | undefined
}

/** The first `count` characters (code points, never half a surrogate pair). */
export const firstCharacters = (text: string, count: number) => {
  if (text.length <= count) return text
  let end = 0
  let seen = 0
  for (const char of text) {
    if (seen === count) break
    end += char.length
    seen++
  }
  return text.slice(0, end)
}

/** §8: only the first 1,000 characters of `keywords` are used. */
export const keywordsUsed = (keywords: string | undefined) => firstCharacters(keywords ?? "", limits.keywordsLength).trim()

/** §8: only the first 1,000 characters of `context` are used. */
export const contextUsed = (context: string | undefined) => firstCharacters(context ?? "", limits.contextLength).trim()

const defaultLanguage = "en"

/** §4.1: English (`en`) when absent; a blank value counts as absent. */
export const languageOrDefault = (language: string | undefined) => (language ?? "").trim() || defaultLanguage

/**
 * §4.1: a code or a name of at most 64 characters, English when absent or blank. The spec leaves
 * a longer value open; we refuse it rather than guess (a truncated language name means nothing).
 */
export const languageUsed = (language: string | undefined): Either.Either<string, LanguageTooLong> => {
  const value = languageOrDefault(language)
  return characters(value) > limits.languageLength ? Either.left(new LanguageTooLong()) : Either.right(value)
}

/** The form's `language`: one cut at its cap (far over 64 characters) is too long, blank or not. */
export const formLanguage = (field: FormText | undefined): Either.Either<string, LanguageTooLong> =>
  field?.truncated === true ? Either.left(new LanguageTooLong()) : languageUsed(field?.text)

/**
 * The form as the describe uses it. Browsers send every field of a form, filled or not: an empty
 * file input as an `image` part of no bytes, an empty text input as a blank value. So an empty
 * `image` is no file (`No file uploaded`, or the `imageUrl` beside it is used), a blank `imageUrl`
 * no URL, and a blank `schema` no schema (§2.2's default fields), as a blank `language` is no language.
 */
export const formAsUsed = (form: DescribeForm): DescribeForm => ({
  ...form,
  image: form.image === undefined || form.image.size === 0 ? undefined : form.image,
  imageUrl: form.imageUrl === undefined || (!form.imageUrl.truncated && form.imageUrl.text.trim() === "") ? undefined : form.imageUrl,
  schema: form.schema === undefined || (!form.schema.truncated && form.schema.text.trim() === "") ? undefined : form.schema
})
