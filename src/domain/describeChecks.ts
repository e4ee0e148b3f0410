/**
 * The failures of `POST /api/describe` in one table (spec §4.1, §7.1): for each, the check that
 * fails with it (the first failing check answers), the status and message the client gets, and
 * whether the answer closes the connection. The HTTP edge, the usage row, the OpenAPI document and
 * the dashboard read it; a failure without a row does not compile.
 */
import type { ApiKeyError, ApiKeyMissing, DescribeError } from "./errors.ts"
import { KeyRejected } from "./errors.ts"

export type DescribeErrorTag = DescribeError["_tag"]

export type DescribeErrorOf<T extends DescribeErrorTag> = Extract<DescribeError, { readonly _tag: T }>

export interface CheckRow<E> {
  /** Its check in the order of §4.1. */
  readonly check: 1 | 2 | 3 | 4 | 5 | 6 | 7
  readonly status: number
  readonly message: string | ((error: E) => string)
  /**
   * Whether the answer closes the connection whatever the body: one announced over 11 MB, or cut
   * off mid-upload. Other answers given before the body was read leave it to the edge
   * (http/connections.ts), which drops a small body that comes at once and closes on any other. A
   * body cut at 11 MB while streaming keeps it open: closing a socket with unread bytes makes the
   * kernel reset it, and the client could lose the 413 it has not read yet.
   */
  readonly closes: boolean | ((error: E) => boolean)
}

const imageTooLarge = "Image too large: the maximum is 10 MB"
const notMultipart = "Bad Request, the body must be multipart/form-data"
const serverError = "Internal Server Error"

export const describeChecks = {
  ApiKeyMissing: { check: 1, status: 401, message: "Unauthorized, missing Authorization header", closes: false },
  KeyRejected: { check: 1, status: 401, message: "Unauthorized, invalid token", closes: false },
  NoCreditLeft: { check: 2, status: 401, message: "Unauthorized, no credit left", closes: false },
  // Credits held by the account's own requests, not an empty balance: retryable and uncharged (§7.3).
  CreditsHeld: { check: 2, status: 500, message: serverError, closes: false },
  RequestTooLarge: { check: 3, status: 413, message: imageTooLarge, closes: (error) => error.announced },
  // The server's memory was busy, not the client's body wrong: retryable and uncharged (§7.3).
  UploadBudgetTimedOut: { check: 3, status: 500, message: serverError, closes: false },
  // A body that does not arrive in time may be a valid form on a slow link: retryable and
  // uncharged (§7.3), where a 400 would tell the client never to send it again. The spec names no timeout.
  UploadTimedOut: { check: 3, status: 500, message: serverError, closes: true },
  NotMultipart: { check: 4, status: 400, message: notMultipart, closes: false },
  // The form is read (its image is part of the request compared), then the key (README,
  // "Retries without paying twice"); the answers use no credit.
  IdempotencyKeyInvalid: {
    check: 4,
    status: 400,
    message: "Bad Request, Idempotency-Key must be 1 to 255 printable characters",
    closes: false
  },
  IdempotencyKeyInProgress: { check: 4, status: 409, message: "A request with this Idempotency-Key is in progress", closes: false },
  IdempotencyKeyReused: { check: 4, status: 422, message: "Idempotency-Key was used with a different request", closes: false },
  NoFileUploaded: { check: 4, status: 400, message: "Bad Request, No file uploaded", closes: false },
  // The spec leaves an over-long language open (§4.1); we refuse it in the form of the other 400s.
  LanguageTooLong: { check: 4, status: 400, message: "Bad Request, language must be at most 64 characters", closes: false },
  InvalidSchema: { check: 5, status: 400, message: (error) => `Invalid schema: ${error.reason}`, closes: false },
  // Check 6 is the image's: an `imageUrl` stands in for the file (check 4 only asks that one of
  // them is there), and whether its hops are public is known only as each is resolved, while
  // fetching; so are refused URLs, fetch failures and a body over 10 MB (ImageTooLarge).
  ImageUrlRefused: { check: 6, status: 400, message: "Bad Request, imageUrl must be a public http or https URL", closes: false },
  ImageUrlFetchFailed: {
    check: 6,
    status: 400,
    message: (error) => `Bad Request, the image at imageUrl could not be fetched: ${error.reason}`,
    closes: false
  },
  ImageTooLarge: { check: 6, status: 413, message: imageTooLarge, closes: false },
  InvalidImageFile: { check: 6, status: 400, message: "Bad Request, Invalid image file", closes: false },
  ImageTooManyPixels: {
    check: 6,
    status: 413,
    message: (error) => `Image too large: the maximum is ${error.maxMegapixels} megapixels`,
    closes: false
  },
  ImageTooManyScans: {
    check: 6,
    status: 413,
    message: (error) => `Image too large: the maximum is ${error.maxScans} scans per JPEG`,
    closes: false
  },
  ImageTooManyFrames: {
    check: 6,
    status: 413,
    message: (error) => `Image too large: the maximum is ${error.maxFrames} frames per animated WebP`,
    closes: false
  },
  ImageProcessingFailed: { check: 6, status: 500, message: (error) => `Image processing failed: ${error.cause}`, closes: false },
  AnswerTooLong: {
    check: 7,
    status: 400,
    message:
      "Invalid schema: the requested fields need a longer answer than the API can return (about 1,500 words for all fields together), ask for fewer or shorter fields",
    closes: false
  },
  GenerationFailed: { check: 7, status: 500, message: serverError, closes: false }
} as const satisfies { readonly [T in DescribeErrorTag]: CheckRow<DescribeErrorOf<T>> }

/** The row of `error`, its message and closing resolved. */
export const failedCheck = (error: DescribeError) => {
  const row = describeChecks[error._tag] as CheckRow<DescribeError>
  return {
    check: row.check,
    status: row.status,
    message: typeof row.message === "string" ? row.message : row.message(error),
    closes: typeof row.closes === "boolean" ? row.closes : row.closes(error)
  }
}

/** Check 1: every key rejection but a missing header is the same 401 on this endpoint (§7.1). */
export const describeKeyError = (error: ApiKeyError): ApiKeyMissing | KeyRejected =>
  error._tag === "ApiKeyMissing" ? error : new KeyRejected()
