/**
 * Every failure a request can meet, as typed errors. The HTTP edge (`src/http/errors.ts`)
 * maps each one to exactly one response of spec section 7 (for `/describe`, from the table of its
 * checks, `describeChecks.ts`); nothing here knows about HTTP.
 */
import * as Schema from "effect/Schema"

// ---- API keys (spec §5, §7.2). `/describe` folds all but `ApiKeyMissing` into one 401.

/** No `Authorization` header, or it does not start with `Bearer `. */
export class ApiKeyMissing extends Schema.TaggedError<ApiKeyMissing>()("ApiKeyMissing", {}) {}

/** Not a key issued by this service (bad signature, other algorithm, truncated) or expired. */
export class ApiKeyInvalid extends Schema.TaggedError<ApiKeyInvalid>()("ApiKeyInvalid", {}) {}

/** Signed by this service but without a `userId`: not a dashboard key. */
export class ApiKeyMalformed extends Schema.TaggedError<ApiKeyMalformed>()("ApiKeyMalformed", {}) {}

/** The key was deleted from the dashboard (or never recorded). */
export class ApiKeyRevoked extends Schema.TaggedError<ApiKeyRevoked>()("ApiKeyRevoked", {}) {}

/** The key is valid but its account no longer exists. */
export class AccountNotFound extends Schema.TaggedError<AccountNotFound>()("AccountNotFound", {}) {}

export type ApiKeyError = ApiKeyMissing | ApiKeyInvalid | ApiKeyMalformed | ApiKeyRevoked | AccountNotFound

// ---- /describe (spec §4.1, §7.1), in the order of the checks.

/** Check 1 on `/describe`: any key rejection other than a missing header. */
export class KeyRejected extends Schema.TaggedError<KeyRejected>()("KeyRejected", {}) {}

/** Check 2: the balance (less credits reserved by requests in flight) is empty. */
export class NoCreditLeft extends Schema.TaggedError<NoCreditLeft>()("NoCreditLeft", {}) {}

/**
 * Check 2: the balance is not empty, but every credit of it stayed held by the account's requests
 * in flight for the whole wait (README, "Behaviour the spec leaves open"). Not §7.1's empty balance:
 * those credits may come back, so the answer is one a client may retry.
 */
export class CreditsHeld extends Schema.TaggedError<CreditsHeld>()("CreditsHeld", {}) {}

/**
 * Check 3: the body is over 11 MB, `announced` by Content-Length (refused unread), or counted while
 * streaming.
 */
export class RequestTooLarge extends Schema.TaggedError<RequestTooLarge>()("RequestTooLarge", {
  announced: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) {}

/** Check 4: not a readable multipart form (JSON, empty, no boundary, broken framing, too many parts). */
export class NotMultipart extends Schema.TaggedError<NotMultipart>()("NotMultipart", {}) {}

/** Checks 3-4: the body did not arrive within the upload deadline (a stalled or trickling client). */
export class UploadTimedOut extends Schema.TaggedError<UploadTimedOut>()("UploadTimedOut", {}) {}

/**
 * Checks 3-4: the upload budget had no room for the announced body within the deadline
 * (services/UploadBudget.ts); the body was fine, so this is the retryable 500 (§7.3).
 */
export class UploadBudgetTimedOut extends Schema.TaggedError<UploadBudgetTimedOut>()("UploadBudgetTimedOut", {}) {}

/** Check 4: the form has no `image` file. */
export class NoFileUploaded extends Schema.TaggedError<NoFileUploaded>()("NoFileUploaded", {}) {}

/** Check 4: `language` is over 64 characters (the spec leaves this open; we refuse it). */
export class LanguageTooLong extends Schema.TaggedError<LanguageTooLong>()("LanguageTooLong", {}) {}

/** Check 5: the schema breaks a rule of §2.2; `reason` is the text after `Invalid schema: `. */
export class InvalidSchema extends Schema.TaggedError<InvalidSchema>()("InvalidSchema", {
  reason: Schema.String
}) {}

/** Check 6: the content is not JPEG, PNG, WebP or GIF. */
export class InvalidImageFile extends Schema.TaggedError<InvalidImageFile>()("InvalidImageFile", {}) {}

/** Check 6: the image part is over 10 MB. */
export class ImageTooLarge extends Schema.TaggedError<ImageTooLarge>()("ImageTooLarge", {}) {}

/** Check 6: the image declares more pixels than we decode (decompression-bomb guard). */
export class ImageTooManyPixels extends Schema.TaggedError<ImageTooManyPixels>()("ImageTooManyPixels", {
  maxMegapixels: Schema.Number
}) {}

/**
 * Check 6: a JPEG in more scans than we decode. Each scan of a progressive JPEG is one more pass
 * over every block, so a small file of thousands of scans costs minutes (a decoding bomb in time).
 */
export class ImageTooManyScans extends Schema.TaggedError<ImageTooManyScans>()("ImageTooManyScans", {
  maxScans: Schema.Number
}) {}

/**
 * Check 6: an animated WebP of more frames than we read. libwebp's demuxer walks every frame to
 * reach any one, and its walk grows with the square of their count: a 10 MB file of 200,000 tiny
 * frames held a decoding slot for minutes (a decoding bomb in time).
 */
export class ImageTooManyFrames extends Schema.TaggedError<ImageTooManyFrames>()("ImageTooManyFrames", {
  maxFrames: Schema.Number
}) {}

/** Check 6: a supported format that cannot be decoded (truncated, corrupt). */
export class ImageProcessingFailed extends Schema.TaggedError<ImageProcessingFailed>()("ImageProcessingFailed", {
  cause: Schema.String
}) {}

/**
 * Check 6, for an image given by `imageUrl`: not an http or https URL, or a hop (the first or a
 * redirect) to an address that is not public (domain/publicAddress.ts). `reason` is for the logs.
 */
export class ImageUrlRefused extends Schema.TaggedError<ImageUrlRefused>()("ImageUrlRefused", {
  reason: Schema.String
}) {}

/** Check 6: the image at `imageUrl` could not be fetched; `reason` is shown to the client. */
export class ImageUrlFetchFailed extends Schema.TaggedError<ImageUrlFetchFailed>()("ImageUrlFetchFailed", {
  reason: Schema.String
}) {}

/** Check 7: the answer would exceed the output budget (~1,500 words for all fields). */
export class AnswerTooLong extends Schema.TaggedError<AnswerTooLong>()("AnswerTooLong", {}) {}

/**
 * Check 7: the model failed, timed out or answered something unusable (domain/describeAnswer.ts:
 * too long or empty where the request gave no schema). Never shown to clients.
 */
export class GenerationFailed extends Schema.TaggedError<GenerationFailed>()("GenerationFailed", {
  reason: Schema.Literal("failed", "rejected", "timeout", "invalid-answer", "refusal", "too-long", "empty-answer", "budget-spent")
}) {}

export type ImageError = InvalidImageFile | ImageTooLarge | ImageTooManyPixels | ImageTooManyScans | ImageTooManyFrames | ImageProcessingFailed
export type ImageUrlError = ImageUrlRefused | ImageUrlFetchFailed
export type DescriberError = AnswerTooLong | GenerationFailed
/** `Idempotency-Key` is not 1 to 255 printable characters (README, "Retries without paying twice"). */
export class IdempotencyKeyInvalid extends Schema.TaggedError<IdempotencyKeyInvalid>()("IdempotencyKeyInvalid", {}) {}

/** The key's first request is still running. */
export class IdempotencyKeyInProgress extends Schema.TaggedError<IdempotencyKeyInProgress>()("IdempotencyKeyInProgress", {}) {}

/** The key was used by the account for a request with other fields or another image. */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {}) {}

export type IdempotencyError = IdempotencyKeyInvalid | IdempotencyKeyInProgress | IdempotencyKeyReused

export type FormError = RequestTooLarge | UploadTimedOut | UploadBudgetTimedOut | NotMultipart | NoFileUploaded | LanguageTooLong

/** The ordered union of §4.1: the first failing check answers. */
export type DescribeError =
  | ApiKeyMissing
  | KeyRejected
  | NoCreditLeft
  | CreditsHeld
  | FormError
  | IdempotencyError
  | InvalidSchema
  | ImageUrlError
  | ImageError
  | DescriberError

// ---- Operator commands (CLI and admin route).

/** An operator named a key that does not exist. */
export class KeyNotFound extends Schema.TaggedError<KeyNotFound>()("KeyNotFound", { id: Schema.String }) {}

/** An operator command with arguments that make no sense (e.g. a negative credit grant). */
export class InvalidCommand extends Schema.TaggedError<InvalidCommand>()("InvalidCommand", { message: Schema.String }) {}

/** A `webhookUrl` that cannot be delivered to (README, "Webhooks"); `reason` is shown to the client. */
export class WebhookUrlInvalid extends Schema.TaggedError<WebhookUrlInvalid>()("WebhookUrlInvalid", {
  reason: Schema.String
}) {
  override get message() {
    return `webhookUrl ${this.reason}`
  }
}

// ---- Batches (README, "Batches").

/** The body of `POST /api/batches` is not a batch: `message` says why, for the 400. */
export class BatchInvalid extends Schema.TaggedError<BatchInvalid>()("BatchInvalid", { message: Schema.String }) {}

/** The body of `POST /api/batches` is over its cap, or did not arrive whole in time. */
export class BatchBodyRefused extends Schema.TaggedError<BatchBodyRefused>()("BatchBodyRefused", {
  reason: Schema.Literal("tooLarge", "timedOut", "broken")
}) {}

/** The account has `batchLimits.queuedItems` items queued already; nothing of this batch is queued. */
export class BatchQueueFull extends Schema.TaggedError<BatchQueueFull>()("BatchQueueFull", {}) {}

/** No batch of the caller's account has this id (another account's batch included). */
export class BatchNotFound extends Schema.TaggedError<BatchNotFound>()("BatchNotFound", {}) {}
