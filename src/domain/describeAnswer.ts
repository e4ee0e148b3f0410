/**
 * What a describer's answer means for the request it answers, which only the request knows: was a
 * schema given (§2.1, §7.1)?
 */
import * as Either from "effect/Either"
import { type DescribeResult, defaultFields, type SchemaFields } from "./describe.ts"
import { type DescriberError, GenerationFailed } from "./errors.ts"

/** One of the default fields (a title, alternative text, a caption) asked for and left empty: unusable. */
export const defaultFieldLeftEmpty = (fields: SchemaFields, result: DescribeResult): boolean =>
  fields.some((field) => defaultFields.includes(field) && (result[field.name] ?? "").trim() === "")

/**
 * - Too long: §7.1's 400 is for a schema that asks for more text than one answer can hold. The
 *   default fields never do, so without a schema an answer too long is the model's failure: a 500
 *   the client may retry, not a 400 it must not.
 * - Empty: the default fields (a title, alternative text, a caption) have something to say about
 *   any image, so an answer leaving one of them empty is unusable and uses no credit. A schema's
 *   own field may rightly be empty (the text in an image that has none).
 */
export const answerAsUsed = (
  schemaGiven: boolean,
  answer: Either.Either<DescribeResult, DescriberError>
): Either.Either<DescribeResult, DescriberError> =>
  schemaGiven
    ? answer
    : Either.match(answer, {
      onLeft: (error) => Either.left(error._tag === "AnswerTooLong" ? new GenerationFailed({ reason: "too-long" }) : error),
      onRight: (result) =>
        defaultFieldLeftEmpty(defaultFields, result)
          ? Either.left(new GenerationFailed({ reason: "empty-answer" }))
          : Either.right(result)
    })
