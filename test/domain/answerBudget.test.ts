import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { exceedsAnswerBudget } from "../../src/domain/answerBudget.ts"
import { limits } from "../../src/domain/limits.ts"

/** `words` words cut into `cuts.length + 1` values at the given places. */
const spread = (words: ReadonlyArray<string>, cuts: ReadonlyArray<number>) => {
  const at = [0, ...[...cuts].map((cut) => cut % (words.length + 1)).sort((a, b) => a - b), words.length]
  return at.slice(1).map((end, i) => words.slice(at[i], end).join(" "))
}

describe("exceedsAnswerBudget (§2.2: about 1,500 words for all fields together)", () => {
  it.prop("counts the words of all values together, however they are shared out", [
    fc.integer({ min: limits.answerWords - 3, max: limits.answerWords + 3 }),
    fc.array(fc.nat(), { maxLength: 19 }),
    fc.constantFrom("red", "Zoë", "l'été", "3.5", "naïve,", "(Tokyo)")
  ], ([count, cuts, word]) => {
    expect(exceedsAnswerBudget(spread(Array.from({ length: count }, () => word), cuts))).toBe(count > limits.answerWords)
  })

  it("counts words, not spaces or punctuation", () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`)
    expect(exceedsAnswerBudget([words(limits.answerWords).join(" ,  — ... \n\t")])).toBe(false)
    expect(exceedsAnswerBudget([words(limits.answerWords).join(" "), " !? -- "])).toBe(false)
    expect(exceedsAnswerBudget([words(limits.answerWords).join(" "), "one"])).toBe(true)
  })

  it("counts words in scripts written without spaces", () => {
    // Nine characters, several words each: 400 of them are far more than 1,500 words.
    expect(exceedsAnswerBudget(["我们在海滩上看日落".repeat(400)])).toBe(true)
    expect(exceedsAnswerBudget(["海辺で夕日を見ています".repeat(400)])).toBe(true)
    expect(exceedsAnswerBudget(["我们在海滩上看日落".repeat(100)])).toBe(false)
  })

  it("counts characters besides spaces too: a model's loop of marks, emoji or one endless word is over", () => {
    for (const loop of ["!".repeat(400_000), "🚲".repeat(100_000), ". ".repeat(200_000), "a".repeat(400_000)]) {
      expect(exceedsAnswerBudget(["A bicycle", loop])).toBe(true)
    }
    expect(exceedsAnswerBudget(["!".repeat(limits.answerCharacters)])).toBe(false)
    expect(exceedsAnswerBudget(["!".repeat(limits.answerCharacters), " \n ".repeat(1000)])).toBe(false)
    expect(exceedsAnswerBudget(["!".repeat(limits.answerCharacters), "!"])).toBe(true)
  })

  it("takes 1,500 long words, a comma after each: 16 characters a word is room enough for German", () => {
    expect(exceedsAnswerBudget([Array.from({ length: limits.answerWords }, () => "Fahrradständer,").join(" ")])).toBe(false)
  })
})
