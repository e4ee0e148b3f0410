/**
 * The upload of a describe, read at the HTTP edge (spec §4.1 checks 3 and 4, §8): the announced
 * length, the upload budget, the body whole or streamed and counted, the upload deadline, and the
 * form. What it reads is the scope's: the body's memory and its share of the budget go as it closes.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { RequestError } from "@effect/platform/HttpServerError"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { AppConfig } from "../config/AppConfig.ts"
import type { DescribeForm } from "../domain/describeForm.ts"
import { NotMultipart, RequestTooLarge, UploadBudgetTimedOut, UploadTimedOut } from "../domain/errors.ts"
import { limits } from "../domain/limits.ts"
import { releaseNow } from "../services/memory.ts"
import { addFinalizer } from "../services/scopedRelease.ts"
import { UploadBudget, type UploadHold } from "../services/UploadBudget.ts"
import { parseMultipartForm, parseWholeForm } from "./multipart.ts"

/** The announced Content-Length, when it is a length. */
const contentLengthOf = (request: HttpServerRequest.HttpServerRequest): number | undefined => {
  const announced = Number(request.headers["content-length"])
  return Number.isSafeInteger(announced) && announced >= 0 ? announced : undefined
}

/**
 * Check 3 on the body as it streams: fails as soon as more than `limits.bodyBytes` have arrived,
 * and reads no further. It comes before the form's (§4.1: 3 before 4), so a body that is not a
 * form, or a broken one, is still counted to its end (without keeping it) before `NotMultipart`.
 */
export const parseFormWithinBodyLimit = <E>(input: {
  readonly contentType: string | undefined
  /** The announced Content-Length, if any: parts are then allocated once, at their final size. */
  readonly contentLength?: number | undefined
  readonly body: Stream.Stream<Uint8Array, E>
}): Effect.Effect<DescribeForm, RequestTooLarge | NotMultipart | E> =>
  parseMultipartForm({
    ...input,
    // A count per run of the stream, checked a batch of chunks at a time: an effect per chunk
    // cost 3 ms more on a 10 MB form in 64 KiB chunks (17 ms before).
    body: Stream.suspend(() => {
      let received = 0
      return Stream.mapChunksEffect(input.body, (chunks) => {
        for (const chunk of chunks) received += chunk.length
        return received > limits.bodyBytes ? Effect.fail(new RequestTooLarge()) : Effect.succeed(chunks)
      })
    })
  })

/**
 * A body whose length is announced (and so bounded by check 3), gathered by Bun into one buffer of
 * that length; the form's parts are views of it. Streamed chunks would each be copied and left to
 * the collector. The buffer is released as the scope closes, once the image is prepared: left to
 * the collector, 32 uploads of 10 MB took the process past 1 GB (docs/BENCHMARKS.md, figure 2).
 * Not `acquireRelease`, whose acquiring cannot be interrupted: the upload deadline cuts a stalled read.
 */
const wholeBody = (request: HttpServerRequest.HttpServerRequest, source: Request) =>
  Effect.tryPromise({
    try: () => source.bytes(),
    catch: (cause) => new RequestError({ request, reason: "Decode", cause })
  }).pipe(Effect.tap((bytes) => addFinalizer(() => releaseNow(bytes))))

/**
 * Checks 3 and 4, with the body's bytes held from the upload budget. A body with a length waits for
 * its bytes before its deadline starts, for at most as long again (README, `UPLOAD_MEMORY_MB`):
 * every upload holding the budget when it began has been read or cut off by then, so room that has
 * not come is taken by newer ones, and the client had better retry (a 500, §7.3). A chunked one,
 * which has no bound but check 3's count, is streamed and takes its bytes as they arrive, within
 * the deadline.
 */
const readFormWithinDeadline = (request: HttpServerRequest.HttpServerRequest, contentLength: number | undefined, held: UploadHold) =>
  Effect.gen(function* () {
    const { uploadTimeout } = yield* AppConfig
    const source = request.source
    const whole = contentLength !== undefined && source instanceof Request ? { source, contentLength } : undefined
    if (whole !== undefined) {
      yield* held.take(whole.contentLength).pipe(
        Effect.timeoutFail({ duration: uploadTimeout, onTimeout: () => new UploadBudgetTimedOut() })
      )
    }
    const contentType = request.headers["content-type"]
    const form: Effect.Effect<DescribeForm, RequestTooLarge | NotMultipart | RequestError, Scope.Scope> = whole !== undefined
      ? Effect.flatMap(wholeBody(request, whole.source), (body) => parseWholeForm(contentType, body))
      : parseFormWithinBodyLimit({ contentType, contentLength, body: Stream.tap(request.stream, (chunk) => held.take(chunk.length)) })
    return yield* form.pipe(
      // The body stopped being readable (the client went away mid-upload).
      Effect.catchTag("RequestError", () => new NotMultipart()),
      Effect.timeoutFail({ duration: uploadTimeout, onTimeout: () => new UploadTimedOut() })
    )
  }).pipe(Effect.withSpan("describe.readForm"))

/**
 * The form of `request`, sent by `accountId`, whose share of the upload budget it holds. Check 3
 * from the announced length comes before a byte is read or held.
 */
export const readDescribeUpload = (request: HttpServerRequest.HttpServerRequest, accountId: string) =>
  Effect.gen(function* () {
    const contentLength = contentLengthOf(request)
    if (contentLength !== undefined && contentLength > limits.bodyBytes) {
      return yield* new RequestTooLarge({ announced: true })
    }
    const held = yield* Effect.flatMap(UploadBudget, (budget) => budget.hold(accountId))
    return yield* readFormWithinDeadline(request, contentLength, held)
  })
