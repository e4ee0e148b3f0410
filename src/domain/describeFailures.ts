/**
 * §7.1: the status and message of each `POST /api/describe` failure, HTTP-free, so the usage row,
 * the dashboard and the edge (http/errors.ts) read the same answer.
 */
import type { DescribeError } from "./errors.ts"

type Failures = {
  readonly [Tag in DescribeError["_tag"]]: (error: Extract<DescribeError, { readonly _tag: Tag }>) => readonly [status: number, message: string]
}

const answerTooLong =
  "Invalid schema: the requested fields need a longer answer than the API can return (about 1,500 words for all fields together), ask for fewer or shorter fields"

const failures: Failures = {
  ApiKeyMissing: () => [401, "Unauthorized, missing Authorization header"],
  KeyRejected: () => [401, "Unauthorized, invalid token"],
  NoCreditLeft: () => [401, "Unauthorized, no credit left"],
  RequestTooLarge: () => [413, "Image too large: the maximum is 10 MB"],
  NotMultipart: () => [400, "Bad Request, the body must be multipart/form-data"],
  // A body that does not arrive in time is not a readable form (§7.1); the spec names no timeout.
  UploadTimedOut: () => [400, "Bad Request, the body must be multipart/form-data"],
  // The server's memory was busy, not the client's body wrong: retryable and uncharged (§7.3).
  UploadBudgetTimedOut: () => [500, "Internal Server Error"],
  NoFileUploaded: () => [400, "Bad Request, No file uploaded"],
  // The spec leaves an over-long language open (§4.1); we refuse it in the form of the other 400s.
  LanguageTooLong: () => [400, "Bad Request, language must be at most 64 characters"],
  InvalidSchema: (error) => [400, `Invalid schema: ${error.reason}`],
  InvalidImageFile: () => [400, "Bad Request, Invalid image file"],
  ImageTooLarge: () => [413, "Image too large: the maximum is 10 MB"],
  ImageTooManyPixels: (error) => [413, `Image too large: the maximum is ${error.maxMegapixels} megapixels`],
  ImageTooManyScans: (error) => [413, `Image too large: the maximum is ${error.maxScans} scans per JPEG`],
  ImageProcessingFailed: (error) => [500, `Image processing failed: ${error.cause}`],
  AnswerTooLong: () => [400, answerTooLong],
  GenerationFailed: () => [500, "Internal Server Error"]
}

/** The status and message a describe failure is answered with (§7.1). */
export const describeFailure = (error: DescribeError): readonly [status: number, message: string] =>
  (failures[error._tag] as (error: DescribeError) => readonly [status: number, message: string])(error)

/** The status a describe failure is answered with, as recorded in its usage row. */
export const describeStatus = (error: DescribeError) => describeFailure(error)[0]
