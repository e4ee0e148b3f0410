/**
 * §2.2: about 1,500 words for all fields together. The prompt asks the model for it; the answer is
 * held to it too, since some endpoints (Ollama, LM Studio) ignore the output-token budget and let a
 * model write on.
 */
import { limits } from "./limits.ts"

/** Words as Unicode segments them (UAX #29 with dictionaries), so Chinese, Japanese or Thai count too. */
const segmenter = new Intl.Segmenter("und", { granularity: "word" })

const isSpace = /\s/u

/**
 * True when `values` hold more than `limits.answerWords` words together, or more than
 * `limits.answerCharacters` characters besides spaces (found by review: 400 KB of `!` was one
 * word); counting stops there.
 */
export const exceedsAnswerBudget = (values: Iterable<string>): boolean => {
  let [words, characters] = [0, 0]
  for (const value of values) {
    for (const character of value) {
      if (!isSpace.test(character) && ++characters > limits.answerCharacters) return true
    }
    for (const segment of segmenter.segment(value)) {
      if (segment.isWordLike === true && ++words > limits.answerWords) return true
    }
  }
  return false
}
