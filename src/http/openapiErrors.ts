/**
 * The error responses of the OpenAPI document (spec §7): per status, the schema of its exact
 * messages and one example body per failure. The describe failures come from the table of its
 * checks (§4.1), the key failures from the `/tokens` table, so the document cannot drift from the
 * responses.
 */
import { schemaRule } from "../domain/schemaFields.ts"
import { type CheckRow, describeChecks, type DescribeErrorOf, type DescribeErrorTag, failedCheck } from "../domain/describeChecks.ts"
import { AccountNotFound, ApiKeyInvalid, ApiKeyMalformed, ApiKeyMissing, ApiKeyRevoked, ImageProcessingFailed, ImageTooManyFrames, ImageTooManyPixels, ImageTooManyScans, ImageUrlFetchFailed, InvalidSchema } from "../domain/errors.ts"
import type { ApiKeyError, DescribeError } from "../domain/errors.ts"
import { maxJpegScans as maxScans, maxMegapixels, maxWebpFrames as maxFrames } from "../domain/pixelLimits.ts"
import { tokensStatusAndMessage } from "./errors.ts"

/** One documented failure: an example body's name and summary, its status and message. */
export interface Failure {
  readonly name: string
  readonly summary: string
  readonly status: number
  readonly message: string
}

/** `ImageTooManyPixels` -> `image too many pixels`. */
const words = (tag: string) => tag.replace(/(?<=[a-z])(?=[A-Z])/g, " ").toLowerCase()

/** The tags whose message depends on the error's fields. */
type VariableTag = { readonly [T in DescribeErrorTag]: (typeof describeChecks)[T]["message"] extends string ? never : T }[DescribeErrorTag]

/** The errors behind the messages that depend on their fields, named, in the forms documented. */
const variableFailures: { readonly [T in VariableTag]: ReadonlyArray<readonly [string, DescribeErrorOf<T>]> } = {
  InvalidSchema: Object.entries(schemaRule).map(([rule, reason]) => [`InvalidSchema.${rule}`, new InvalidSchema({ reason })]),
  // Its message carries the reason, matched by `describePatterns`; this one is an instance.
  ImageUrlFetchFailed: [["ImageUrlFetchFailed", new ImageUrlFetchFailed({ reason: "the server answered 404" })]],
  ImageTooManyPixels: [["ImageTooManyPixels", new ImageTooManyPixels({ maxMegapixels })]],
  ImageTooManyScans: [["ImageTooManyScans", new ImageTooManyScans({ maxScans })]],
  ImageTooManyFrames: [["ImageTooManyFrames", new ImageTooManyFrames({ maxFrames })]],
  // Its message carries the decoder's words, matched by `messagePatterns`; this one is an instance.
  ImageProcessingFailed: [["ImageProcessingFailed", new ImageProcessingFailed({ cause: "VipsJpeg: Premature end of input file" })]]
}

/** A message that carries a cause: documented by its pattern, per status. */
export const describePatterns: Record<number, ReadonlyArray<string>> = {
  400: ["^Bad Request, the image at imageUrl could not be fetched: .+"],
  500: ["^Image processing failed: .+"]
}

/** Every describe failure, in the order of its checks (§4.1), as the table lists them. */
export const describeFailures: ReadonlyArray<Failure> = (Object.entries(describeChecks) as ReadonlyArray<[DescribeErrorTag, CheckRow<DescribeError>]>)
  .flatMap(([tag, row]) =>
    (typeof row.message === "string"
      ? [{ name: tag, status: row.status, message: row.message }]
      : (variableFailures[tag as VariableTag] as ReadonlyArray<readonly [string, DescribeError]>).map(([name, error]) => ({ name, ...failedCheck(error) })))
      .map(({ message, name, status }) => ({ name, status, message, summary: `Check ${row.check}: ${words(tag)}` }))
  )

const keyErrors: ReadonlyArray<ApiKeyError> = [new ApiKeyMissing(), new ApiKeyInvalid(), new ApiKeyMalformed(), new ApiKeyRevoked(), new AccountNotFound()]

/** Every `/tokens` failure (§7.2); a defect answers the generic 500 (http/routes/tokens.ts). */
export const tokensFailures: ReadonlyArray<Failure> = [
  ...keyErrors.map((error) => {
    const [status, message] = tokensStatusAndMessage(error)
    return { name: error._tag, summary: words(error._tag), status, message }
  }),
  { name: "ServerError", summary: "an unexpected failure, logged", status: 500, message: "Server error" }
]

const statusText: Record<number, string> = {
  400: "Bad request: not retried unchanged (§7.3)",
  401: "Unauthorized",
  404: "Not found",
  409: "Conflict: the first request with this Idempotency-Key is still running; retry later",
  413: "Payload too large",
  422: "Unprocessable: the Idempotency-Key was used for another request; use a new key",
  500: "Server error: may be retried after a short wait, never charged (§7.3)"
}

/** The `error` string: its exact messages, its patterns, or either. */
const messageSchema = (messages: ReadonlyArray<string>, patterns: ReadonlyArray<string>) => {
  const choices = [...(messages.length > 0 ? [{ enum: [...new Set(messages)] }] : []), ...patterns.map((pattern) => ({ pattern }))]
  return { type: "string", ...(choices.length === 1 ? choices[0] : { anyOf: choices }) }
}

/** Responses grouped by status, each with its exact messages and an example per failure (§7). */
export const errorResponses = (failures: ReadonlyArray<Failure>, patterns: Record<number, ReadonlyArray<string>> = {}) => {
  const statuses = [...new Set(failures.map(({ status }) => status))].sort()
  return Object.fromEntries(statuses.map((status) => {
    const own = failures.filter((failure) => failure.status === status)
    return [String(status), {
      description: statusText[status] ?? String(status),
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["error"],
            additionalProperties: false,
            properties: { error: messageSchema(own.map(({ message }) => message).filter((m) => !patterns[status]?.some((p) => new RegExp(p).test(m))), patterns[status] ?? []) }
          },
          examples: Object.fromEntries(own.map(({ message, name, summary }) => [name, { summary, value: { error: message } }]))
        }
      }
    }]
  }))
}
