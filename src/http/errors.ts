/**
 * The one place where typed failures become responses (spec §2.4, §7): each error maps to exactly
 * one status and message per endpoint, and a defect to the endpoint's 500, logged, never shown.
 */
import { HttpServerResponse } from "@effect/platform"
import { Cause, Effect } from "effect"
import type { ApiKeyError, DescribeError } from "../domain/errors.ts"

type Responses<E extends { readonly _tag: string }> = {
  readonly [Tag in E["_tag"]]: (error: Extract<E, { readonly _tag: Tag }>) => readonly [status: number, message: string]
}

/** §2.4: the status, `Content-Type: application/json`, and `{"error": "<message>"}`. */
export const errorResponse = (status: number, message: string, headers?: Record<string, string>) =>
  HttpServerResponse.unsafeJson({ error: message }, { status, ...(headers ? { headers } : {}) })

const lookup = <E extends { readonly _tag: string }>(responses: Responses<E>) => (error: E) =>
  (responses[error._tag as E["_tag"]] as (error: E) => readonly [status: number, message: string])(error)

const respond = <E extends { readonly _tag: string }>(responses: Responses<E>) => (error: E) =>
  errorResponse(...lookup(responses)(error))

/** §7.2, `GET /api/tokens`. */
const tokensResponses: Responses<ApiKeyError> = {
  ApiKeyMissing: () => [401, "Missing or invalid authentication token"],
  ApiKeyInvalid: () => [401, "Invalid or expired token"],
  ApiKeyMalformed: () => [400, "Malformed token: missing userId"],
  ApiKeyRevoked: () => [401, "Unauthorized, invalid token"],
  AccountNotFound: () => [404, "User not found"]
}

export const tokensError = respond(tokensResponses)

/** The status and message of a `/tokens` failure (for the OpenAPI document). */
export const tokensFailure = lookup(tokensResponses)

export const answerTooLong =
  "Invalid schema: the requested fields need a longer answer than the API can return (about 1,500 words for all fields together), ask for fewer or shorter fields"

/** §7.1, `POST /api/describe`. */
const describeResponses: Responses<DescribeError> = {
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

export const describeError = respond(describeResponses)

/** The status a describe failure is answered with, as recorded in its usage row. */
export const describeStatus = (error: DescribeError) => lookup(describeResponses)(error)[0]

/** The status and message of a describe failure (for the OpenAPI document and the dashboard). */
export const describeFailure = lookup(describeResponses)

/** A defect or an interruption: logged with its cause, answered with the endpoint's generic 500. */
export const unexpected = (message: string) => (cause: Cause.Cause<unknown>) =>
  Effect.logError("unexpected failure", cause).pipe(Effect.as(errorResponse(500, message)))
