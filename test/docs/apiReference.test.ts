/**
 * docs/api.md lists every error of the two client endpoints, with its status, as the service
 * answers it. The messages come from the tables that answer requests (`src/domain/describeChecks.ts`,
 * `src/http/errors.ts` and
 * the schema rules of `src/domain/schemaFields.ts`), with one instance of each error tag: a tag
 * added to `DescribeError` or `ApiKeyError` without a case here does not compile.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import type { ApiKeyError, DescribeError } from "../../src/domain/errors.ts"
import {
  AccountNotFound,
  AnswerTooLong,
  ApiKeyInvalid,
  ApiKeyMalformed,
  ApiKeyMissing,
  ApiKeyRevoked,
  GenerationFailed,
  ImageProcessingFailed,
  ImageTooLarge,
  ImageUrlFetchFailed,
  ImageUrlRefused,
  ImageTooManyPixels,
  IdempotencyKeyInProgress,
  IdempotencyKeyInvalid,
  IdempotencyKeyReused,
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
import { failedCheck } from "../../src/domain/describeChecks.ts"
import { tokensFailure } from "../../src/http/errors.ts"
import { maxJpegScans, maxMegapixels } from "../../src/domain/pixelLimits.ts"
import { decodeTimeoutSeconds } from "../../src/services/Images.ts"

type Cases<E extends { readonly _tag: string }> = { readonly [Tag in E["_tag"]]: ReadonlyArray<Extract<E, { readonly _tag: Tag }>> }

const describeCases: Cases<DescribeError> = {
  ApiKeyMissing: [new ApiKeyMissing()],
  KeyRejected: [new KeyRejected()],
  NoCreditLeft: [new NoCreditLeft()],
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
  // The reasons are written inline in services/ImageFetcher.ts and imageUrlGet.ts; this list follows them by hand.
  ImageUrlFetchFailed: [
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
  // The causes are written inline in services/Images.ts (`decoding`); this list follows them by hand.
  ImageProcessingFailed: [
    ...Object.values(imageFormatName).map((name) => new ImageProcessingFailed({ cause: `the ${name} file is truncated or corrupt` })),
    new ImageProcessingFailed({ cause: `decoding took longer than ${decodeTimeoutSeconds} seconds` })
  ],
  AnswerTooLong: [new AnswerTooLong()],
  GenerationFailed: (["failed", "timeout", "invalid-answer", "refusal"] as const).map((reason) => new GenerationFailed({ reason }))
}

const tokensCases: Cases<ApiKeyError> = {
  ApiKeyMissing: [new ApiKeyMissing()],
  ApiKeyInvalid: [new ApiKeyInvalid()],
  ApiKeyMalformed: [new ApiKeyMalformed()],
  ApiKeyRevoked: [new ApiKeyRevoked()],
  AccountNotFound: [new AccountNotFound()]
}

const all = <E extends { readonly _tag: string }>(cases: Cases<E>): ReadonlyArray<E> =>
  Object.values<ReadonlyArray<E>>(cases as unknown as Record<string, ReadonlyArray<E>>).flat()

const row = ([status, message]: readonly [number, string]) => `${status} ${message}`

/**
 * The `status | \`message\`` rows of the table under `heading`, up to the next heading of its
 * level or above.
 */
const documentedErrors = (doc: string, heading: string): ReadonlyArray<string> => {
  const start = doc.indexOf(`\n${heading}\n`)
  if (start < 0) return []
  const rest = doc.slice(start + heading.length + 2)
  const end = rest.search(/\n#{1,3} /)
  const section = end < 0 ? rest : rest.slice(0, end)
  return [...section.matchAll(/^\| (\d{3}) \| `([^`]+)`/gm)].map((match) => `${match[1]} ${match[2]}`)
}

const doc = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8")

// `unexpected(...)` in the routes: the defect answers, not in the error tables.
const tokensDefect = row([500, "Server error"])
// One documented row is a pattern for the lower pixel limits, not a message.
const pixelPattern = "413 Image too large: the maximum is N megapixels"

describe("docs/api.md", () => {
  it("lists every error of POST /api/describe, with its status, exactly as the service answers it", () => {
    const documented = documentedErrors(doc, "### Errors of POST /api/describe")
    const answered = new Set(all(describeCases).map((error) => row([failedCheck(error).status, failedCheck(error).message])))
    expect([...answered].filter((message) => !documented.includes(message))).toEqual([])
    // And nothing the service no longer says.
    expect(documented.filter((message) => !answered.has(message) && message !== pixelPattern)).toEqual([])
  })

  it("lists every error of GET /api/tokens, with its status, exactly as the service answers it", () => {
    const documented = documentedErrors(doc, "### Errors of GET /api/tokens")
    const answered = new Set([...all(tokensCases).map((error) => row(tokensFailure(error))), tokensDefect])
    expect([...answered].filter((message) => !documented.includes(message))).toEqual([])
    expect(documented.filter((message) => !answered.has(message))).toEqual([])
  })

  it("is what the README links to for the API, rather than a document outside the repository", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8")
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1])
    expect(targets).toContain("docs/api.md")
    expect(targets.filter((target) => target?.startsWith("../"))).toEqual([])
  })
})
