/**
 * Every failure of `POST /api/describe`, each tag with the instances that give each of its
 * messages: a tag added to `DescribeError` without a case here does not compile. Read by the
 * tests of docs/api.md and of the OpenAPI document.
 */
import type { DescribeError } from "../../src/domain/errors.ts"
import {
  AnswerTooLong,
  ApiKeyMissing,
  CreditsHeld,
  GenerationFailed,
  ImageProcessingFailed,
  ImageTooLarge,
  ImageUrlFetchFailed,
  ImageUrlRefused,
  ImageTooManyPixels,
  IdempotencyKeyInProgress,
  IdempotencyKeyInvalid,
  IdempotencyKeyReused,
  ImageTooManyFrames,
  ImageTooManyScans,
  InvalidImageFile,
  InvalidSchema,
  KeyRejected,
  LanguageTooLong,
  NoCreditLeft,
  NoFileUploaded,
  NotMultipart,
  RequestTooLarge,
  UploadBudgetTimedOut,
  UploadTimedOut
} from "../../src/domain/errors.ts"
import { imageFormatName } from "../../src/domain/imageFormat.ts"
import { schemaRule } from "../../src/domain/schemaFields.ts"
import { maxJpegScans, maxMegapixels, maxWebpFrames } from "../../src/domain/pixelLimits.ts"
import { decodeTimeoutSeconds } from "../../src/services/Images.ts"

export type Cases<E extends { readonly _tag: string }> = { readonly [Tag in E["_tag"]]: ReadonlyArray<Extract<E, { readonly _tag: Tag }>> }

export const describeCases: Cases<DescribeError> = {
  ApiKeyMissing: [new ApiKeyMissing()],
  KeyRejected: [new KeyRejected()],
  NoCreditLeft: [new NoCreditLeft()],
  CreditsHeld: [new CreditsHeld()],
  RequestTooLarge: [new RequestTooLarge({ announced: true }), new RequestTooLarge({ announced: false })],
  NotMultipart: [new NotMultipart()],
  UploadTimedOut: [new UploadTimedOut()],
  UploadBudgetTimedOut: [new UploadBudgetTimedOut()],
  IdempotencyKeyInvalid: [new IdempotencyKeyInvalid()],
  IdempotencyKeyInProgress: [new IdempotencyKeyInProgress()],
  IdempotencyKeyReused: [new IdempotencyKeyReused()],
  NoFileUploaded: [new NoFileUploaded()],
  LanguageTooLong: [new LanguageTooLong()],
  InvalidSchema: Object.values(schemaRule).map((reason) => new InvalidSchema({ reason })),
  InvalidImageFile: [new InvalidImageFile()],
  ImageUrlRefused: [new ImageUrlRefused({ reason: "not an http or https URL" })],
  // The reasons are written inline in services/ImageFetcher.ts, imageUrlGet.ts and describeImage.ts; this list follows them by hand.
  ImageUrlFetchFailed: [
    "its URL is over 8 KiB",
    "its URL holds a user name or password, which are never sent",
    "it redirects to a URL with a user name or password, which are never sent",
    "its host name did not resolve",
    "the connection failed",
    "the server answered 404",
    "the connection closed before the end of the image",
    "more than 3 redirects",
    "no complete answer within 10 s"
  ].map((reason) => new ImageUrlFetchFailed({ reason })),
  ImageTooLarge: [new ImageTooLarge()],
  // The common limit; the lower ones of files decoded whole are documented as "N megapixels".
  ImageTooManyPixels: [new ImageTooManyPixels({ maxMegapixels })],
  ImageTooManyScans: [new ImageTooManyScans({ maxScans: maxJpegScans })],
  ImageTooManyFrames: [new ImageTooManyFrames({ maxFrames: maxWebpFrames })],
  // The causes are written inline in services/Images.ts (`decoding`); this list follows them by hand.
  ImageProcessingFailed: [
    ...Object.values(imageFormatName).map((name) => new ImageProcessingFailed({ cause: `the ${name} file is truncated or corrupt` })),
    new ImageProcessingFailed({ cause: `decoding took longer than ${decodeTimeoutSeconds} seconds` })
  ],
  AnswerTooLong: [new AnswerTooLong()],
  GenerationFailed: (["failed", "timeout", "invalid-answer", "refusal"] as const).map((reason) => new GenerationFailed({ reason }))
}


/** The instances of every case, in the table's order. */
export const everyDescribeFailure: ReadonlyArray<DescribeError> = Object.values<ReadonlyArray<DescribeError>>(
  describeCases as unknown as Record<string, ReadonlyArray<DescribeError>>
).flat()
