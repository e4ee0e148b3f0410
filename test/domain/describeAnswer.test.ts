import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { answerAsUsed } from "../../src/domain/describeAnswer.ts"
import { AnswerTooLong, GenerationFailed } from "../../src/domain/errors.ts"

const full = { title: "Red square", alternativeText: "A red block on white.", caption: "Red and white." }

describe("answerAsUsed", () => {
  it("an answer too long is the schema's 400 with a schema, the model's 500 without", () => {
    expect(answerAsUsed(true, Either.left(new AnswerTooLong()))).toEqual(Either.left(new AnswerTooLong()))
    expect(answerAsUsed(false, Either.left(new AnswerTooLong()))).toEqual(Either.left(new GenerationFailed({ reason: "too-long" })))
  })

  it("without a schema, an empty or blank default field makes the answer unusable; with one, it stands", () => {
    for (const blank of ["", "   "]) {
      const answer = Either.right({ ...full, caption: blank })
      expect(answerAsUsed(false, answer)).toEqual(Either.left(new GenerationFailed({ reason: "empty-answer" })))
      expect(answerAsUsed(true, answer)).toEqual(answer)
    }
    expect(answerAsUsed(false, Either.right(full))).toEqual(Either.right(full))
  })

  it("other failures pass through unchanged", () => {
    const failed = Either.left(new GenerationFailed({ reason: "timeout" }))
    expect(answerAsUsed(false, failed)).toEqual(failed)
    expect(answerAsUsed(true, failed)).toEqual(failed)
  })
})
