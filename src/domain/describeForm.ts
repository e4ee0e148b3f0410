/** The text fields of a describe request (spec §4.1, §8), as pure rules. */
import { Either } from "effect"
import { LanguageTooLong } from "./errors.ts"
import { characters } from "./schemaFields.ts"
import { limits } from "./limits.ts"

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

export const defaultLanguage = "en"

/**
 * §4.1: a code or a name of at most 64 characters, English when absent or blank. The spec leaves
 * a longer value open; we refuse it rather than guess (a truncated language name means nothing).
 */
export const languageUsed = (language: string | undefined): Either.Either<string, LanguageTooLong> => {
  const value = (language ?? "").trim()
  if (value === "") return Either.right(defaultLanguage)
  return characters(value) > limits.languageLength ? Either.left(new LanguageTooLong()) : Either.right(value)
}
