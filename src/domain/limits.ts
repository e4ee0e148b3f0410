/** The numbers of spec §8, in one place. */
const MB = 1024 * 1024

export const limits = {
  /** §8 Image size. */
  imageBytes: 10 * MB,
  /** §8 Request body size; refused before reading when Content-Length announces more. */
  bodyBytes: 11 * MB,
  /** §8 Image scaling: longest side after preparation. */
  longestSide: 1000,
  /** §2.2 schema rules. */
  schemaFields: 20,
  fieldNameLength: 64,
  fieldDescriptionLength: 1000,
  /** §2.2 combined answer size for all fields, in words. */
  answerWords: 1500,
  /**
   * The same budget in characters other than spaces, 16 a word: a model caught in a loop writes
   * runs that are not words (`!!!…`, emoji, one endless word), which the count of words misses.
   */
  answerCharacters: 1500 * 16,
  /** §8 `keywords` and `context`: only the first 1,000 characters are used. */
  keywordsLength: 1000,
  contextLength: 1000,
  /** §8 `language` length. */
  languageLength: 64
} as const
