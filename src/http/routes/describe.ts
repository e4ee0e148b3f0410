/**
 * `POST /api/describe` (spec §4.1): one pipeline whose checks fail in the spec's order, each with
 * a typed error that `describeError` maps to its response. The credit is reserved at check 2 and
 * settled when the request ends, whatever the ending: captured on success, released otherwise
 * (a client that disconnects interrupts the pipeline, and so releases it).
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { RequestError } from "@effect/platform/HttpServerError"
import { Cause, Duration, Effect, Exit, Metric, Option, Stream } from "effect"
import { AppConfig } from "../../config.ts"
import { defaultFields, type DescribeRequest, describeResultEntries, describeResultJson } from "../../domain/describe.ts"
import { describeKeyError } from "../../domain/describeChecks.ts"
import { contextUsed, keywordsUsed, languageUsed } from "../../domain/describeForm.ts"
import type { DescribeError } from "../../domain/errors.ts"
import {
  ImageTooLarge,
  InvalidSchema,
  LanguageTooLong,
  NoFileUploaded,
  NotMultipart,
  RequestTooLarge,
  UploadBudgetTimedOut,
  UploadTimedOut
} from "../../domain/errors.ts"
import { limits } from "../../domain/limits.ts"
import { imageBytesIn, imageSeconds, modelErrors, modelSeconds } from "../../metrics.ts"
import { parseSchemaFields, schemaRule } from "../../domain/schemaFields.ts"
import { ApiKeys } from "../../services/ApiKeys.ts"
import { Credits } from "../../services/Credits.ts"
import type { Outcome } from "../../services/Credits.ts"
import { Describer, type DescriberKind } from "../../services/Describer.ts"
import { Images } from "../../services/Images.ts"
import { UploadBudget, type UploadHold } from "../../services/UploadBudget.ts"
import { describeError, describeStatus, unexpected } from "../errors.ts"
import { withoutIdleTimeout } from "../connections.ts"
import { readDescribeForm } from "../multipart.ts"
import type { DescribeForm } from "../multipart.ts"
import { note } from "../requestLog.ts"

/** Check 1: every rejection but a missing header is the same 401 on this endpoint (§7.1). */
const authenticate = (authorization: string | undefined) =>
  Effect.flatMap(ApiKeys, (keys) => keys.authenticate(authorization)).pipe(
    Effect.mapError(describeKeyError)
  )

/** The announced Content-Length, when it is a length. */
const contentLengthOf = (request: HttpServerRequest.HttpServerRequest): number | undefined => {
  const announced = Number(request.headers["content-length"])
  return Number.isSafeInteger(announced) && announced >= 0 ? announced : undefined
}

/**
 * Hands a buffer's memory back now rather than whenever the collector comes by (under a burst it
 * came too late). Only a buffer that is this array's alone: a view into a shared one is left alone.
 */
const releaseNow = (bytes: Uint8Array) =>
  Effect.try(() => {
    const { buffer } = bytes
    if (buffer instanceof ArrayBuffer && buffer.byteLength === bytes.byteLength) buffer.transfer(0)
  }).pipe(Effect.catchAll(() => Effect.logWarning("a buffer could not be released; the collector will take it")))

/**
 * A body whose length is announced (and so bounded by check 3), gathered by Bun into one buffer of
 * that length; the form's parts are views of it. Streamed chunks would each be copied and left to
 * the collector. The buffer is released when the enclosing scope closes, once the image is
 * prepared: left to the collector, 32 uploads of 10 MB took the process past 1 GB
 * (docs/BENCHMARKS.md, figure 2).
 */
const wholeBody = (request: HttpServerRequest.HttpServerRequest, source: Request) =>
  Effect.tryPromise({
    try: () => source.bytes(),
    catch: (cause) => new RequestError({ request, reason: "Decode", cause })
  }).pipe(Effect.tap((bytes) => Effect.addFinalizer(() => releaseNow(bytes))))

/**
 * Checks 3 and 4, with the body's bytes held from the upload budget. A body with a length waits for
 * its bytes before its deadline starts, for at most as long again (README, `UPLOAD_MEMORY_MB`):
 * every upload holding the budget when it began has been read or cut off by then, so room that has
 * not come is taken by newer ones, and the client had better retry (a 500, §7.3). A chunked one,
 * which has no bound but check 3's count, is streamed and takes its bytes as they arrive, within
 * the deadline.
 */
const readForm = (request: HttpServerRequest.HttpServerRequest, contentLength: number | undefined, held: UploadHold) =>
  Effect.gen(function* () {
    const { uploadTimeout } = yield* AppConfig
    const source = request.source
    const whole = contentLength !== undefined && source instanceof Request ? { source, contentLength } : undefined
    if (whole !== undefined) {
      yield* held.take(whole.contentLength).pipe(
        Effect.timeoutFail({ duration: uploadTimeout, onTimeout: () => new UploadBudgetTimedOut() })
      )
    }
    return yield* Effect.gen(function* () {
      const body = whole !== undefined
        ? Stream.make(yield* wholeBody(request, whole.source))
        : Stream.tap(request.stream, (chunk) => held.take(chunk.length))
      return yield* readDescribeForm({ contentType: request.headers["content-type"], contentLength, body })
    }).pipe(
      // The body stopped being readable (the client went away mid-upload).
      Effect.catchTag("RequestError", () => new NotMultipart()),
      Effect.timeoutFail({ duration: uploadTimeout, onTimeout: () => new UploadTimedOut() })
    )
  }).pipe(Effect.withSpan("describe.readForm"))

/**
 * Checks 3 to 6, within the upload budget: what the describer needs, and nothing of the body, so
 * the upload's memory can go before the model is called.
 */
const prepareUpload = (
  request: HttpServerRequest.HttpServerRequest,
  accountId: string,
  adapt: (form: DescribeForm) => DescribeForm
) =>
  Effect.gen(function* () {
    const contentLength = contentLengthOf(request)
    // Check 3 from the announced length, before a byte is read.
    if (contentLength !== undefined && contentLength > limits.bodyBytes) {
      return yield* new RequestTooLarge({ announced: true })
    }
    // Scoped: the body is let go as this ends, then its share of the budget.
    return yield* Effect.scoped(Effect.gen(function* () {
      const held = yield* Effect.flatMap(UploadBudget, (budget) => budget.hold(accountId))
      const form = adapt(yield* readForm(request, contentLength, held))
      if (form.image === undefined) return yield* new NoFileUploaded()
      if (form.language?.truncated) return yield* new LanguageTooLong()
      const language = yield* languageUsed(form.language?.text)

      const fields = form.schema === undefined
        ? defaultFields
        : form.schema.truncated
        ? yield* new InvalidSchema({ reason: schemaRule.tooLarge })
        : yield* parseSchemaFields(form.schema.text).pipe(Effect.withSpan("describe.schema"))

      const upload = form.image
      yield* note({ imageBytes: upload.size })
      yield* Metric.incrementBy(imageBytesIn, upload.size)
      if (upload.size > limits.imageBytes) return yield* new ImageTooLarge()
      const image = yield* Effect.flatMap(Images, (images) => images.prepare(upload.bytes, accountId)).pipe(
        Metric.trackDurationWith(imageSeconds, Duration.toSeconds)
      )
      const input: DescribeRequest = {
        image,
        fields,
        keywords: keywordsUsed(form.keywords?.text),
        context: contextUsed(form.context?.text),
        language
      }
      return { input, schemaGiven: form.schema !== undefined }
    }))
  })

/**
 * Check 7: the describer takes what it needs of the pixels, which are then released, whatever
 * happened: the request holds none of them while it waits on the model (services/Describer.ts).
 * The start runs to its end even when the client goes away: libvips work (the model's JPEG) cannot
 * be cancelled, and releasing pixels it is still reading would pull them from under it.
 */
const generate = (input: DescribeRequest) =>
  Effect.gen(function* () {
    const [elapsed, result] = yield* Effect.flatMap(Describer, (describer) => Effect.uninterruptible(describer.start(input))).pipe(
      Effect.ensuring(releaseNow(input.image.pixels)),
      Effect.flatten,
      Effect.timed
    )
    yield* Metric.update(modelSeconds, Duration.toSeconds(elapsed))
    yield* note({ modelLatencyMs: Math.round(Duration.toMillis(elapsed)) })
    return result
  }).pipe(Effect.tapError((error) => Metric.increment(Metric.tagged(modelErrors, "kind", error._tag))))

/** A success: the values in the requested order (§2.1), and who wrote them in which language. */
export interface Described {
  readonly entries: ReadonlyArray<readonly [string, string]>
  /** BCP 47, the `Content-Language` of the answer. */
  readonly language: string
  readonly describer: DescriberKind
}

/** Checks 3 to 7, once a credit is held. */
const describeUpload = (
  request: HttpServerRequest.HttpServerRequest,
  accountId: string,
  adapt: (form: DescribeForm) => DescribeForm
) =>
  Effect.gen(function* () {
    const { input, schemaGiven } = yield* prepareUpload(request, accountId, adapt)
    const result = yield* generate(input)
    const describer = yield* Describer
    return {
      entries: describeResultEntries(input.fields, result, schemaGiven),
      language: describer.writtenLanguage(input.language),
      describer: describer.kind
    } satisfies Described
  })

/** What the usage row records of how a request ended; 200 captures the credit. */
const outcomeOf = (exit: Exit.Exit<unknown, DescribeError>): Outcome =>
  Exit.match(exit, {
    onSuccess: () => ({ status: 200, errorKind: null }),
    onFailure: (cause) =>
      Option.match(Cause.failureOption(cause), {
        onSome: (error) => ({ status: describeStatus(error), errorKind: error._tag }),
        onNone: () =>
          Cause.isInterruptedOnly(cause)
            ? { status: 499, errorKind: "ClientClosedRequest" }
            : { status: 500, errorKind: "Unexpected" }
      })
  })

/**
 * §2.1: the values with the keys in the requested order; the language they are written in and the
 * describer that wrote them, so a client can tell placeholder text from a model's (README).
 */
const resultResponse = (described: Described) =>
  HttpServerResponse.text(describeResultJson(described.entries), {
    contentType: "application/json",
    headers: { "content-language": described.language, "x-describer": described.describer }
  })

/**
 * Checks 2 to 7 once the caller is known: a credit held, then captured or released as the request
 * ends. One pipeline for the API (a key) and the dashboard's Try it page (a session, no key, and
 * `adapt` to read an HTML form, which sends its blank fields too). Each of its waits has a deadline
 * of its own (the upload's, the model's), so the connection's idle timer is off meanwhile: a model
 * slower than it would otherwise cut the client off.
 */
export const describeCharged = (
  request: HttpServerRequest.HttpServerRequest,
  accountId: string,
  keyId: string | null,
  adapt: (form: DescribeForm) => DescribeForm = (form) => form
) =>
  Effect.flatMap(Credits, (credits) =>
    credits.withCredit({
      accountId,
      keyId,
      outcome: outcomeOf,
      onSettled: (creditsAfter) => note({ creditsAfter })
    }, describeUpload(request, accountId, adapt))).pipe(withoutIdleTimeout(request))

export const describe = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { account, key } = yield* authenticate(request.headers.authorization)
  return resultResponse(yield* describeCharged(request, account.id, key.id))
}).pipe(
  Effect.catchAll((error) =>
    note({ errorKind: error._tag }).pipe(Effect.as(describeError(error)))
  ),
  Effect.catchAllCause(unexpected("Internal Server Error")),
  Effect.withSpan("POST /api/describe")
)
