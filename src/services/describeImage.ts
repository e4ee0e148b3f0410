/**
 * Describing one image for an account (spec §4.1), apart from HTTP: a credit held (check 2), the
 * caller's form read (checks 3 and 4 are its reader's), checks 4 to 7, and the credit captured on
 * success, released otherwise (an interrupted request included). The API route and the
 * dashboard's Try it page both run it.
 */
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HashSet from "effect/HashSet"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { defaultFields, type DescribeRequest, describeResultEntries } from "../domain/describe.ts"
import { answerAsUsed } from "../domain/describeAnswer.ts"
import { failedCheck } from "../domain/describeChecks.ts"
import { contextUsed, type DescribeForm, formAsUsed, formCaps, type FormFile, formLanguage, type FormText, keywordsUsed } from "../domain/describeForm.ts"
import type { DescribeError, DescriberError } from "../domain/errors.ts"
import { ImageUrlFetchFailed, InvalidSchema, NoFileUploaded } from "../domain/errors.ts"
import { parseSchemaFields, schemaRule } from "../domain/schemaFields.ts"
import { imageBytesIn, imageSeconds, modelErrors, modelSeconds } from "../metrics.ts"
import { addToRequestLog } from "./RequestFacts.ts"
import { Credits, type Outcome } from "./Credits.ts"
import { Describer, type DescriberKind } from "./Describer.ts"
import { ImageFetcher } from "./ImageFetcher.ts"
import { Images } from "./Images.ts"
import { UploadBudget } from "./UploadBudget.ts"
import type { AccountId, KeyId } from "../domain/ids.ts"

/** A success: the values in the requested order (§2.1), and who wrote them in which language. */
export interface Described {
  readonly entries: ReadonlyArray<readonly [string, string]>
  /** BCP 47, the `Content-Language` of the answer. */
  readonly language: string
  readonly describer: DescriberKind
}

/**
 * Check 4's image: the file, else the URL to fetch it from at check 6 (README, "Images by URL");
 * when both are given, the file wins and the URL is not fetched.
 */
const imageSource = (form: DescribeForm) =>
  form.image !== undefined
    ? Effect.succeed(form.image)
    : form.imageUrl !== undefined
    ? Effect.succeed(form.imageUrl)
    : new NoFileUploaded()

/**
 * The bytes of the image: the uploaded file's, or fetched from its URL (check 6), held from the
 * account's share of the upload budget until the scope closes, as an upload's are.
 */
const imageBytes = (source: FormFile | FormText, accountId: string) =>
  "bytes" in source
    ? Effect.succeed(source)
    : source.truncated
    ? new ImageUrlFetchFailed({ reason: `its URL is over ${formCaps.imageUrl / 1024} KiB` })
    : Effect.gen(function* () {
      const held = yield* Effect.flatMap(UploadBudget, (budget) => budget.hold(accountId))
      const bytes = yield* Effect.flatMap(ImageFetcher, (fetcher) => fetcher.fetch(source.text, held.take))
      return { bytes, size: bytes.length }
    })

/** Checks 4 (the image, the language) and 5 on a read form. */
const checkForm = (read: DescribeForm) =>
  Effect.gen(function* () {
    const form = formAsUsed(read)
    const source = yield* imageSource(form)
    const language = yield* formLanguage(form.language)
    const fields = form.schema === undefined
      ? defaultFields
      : form.schema.truncated
      ? yield* new InvalidSchema({ reason: schemaRule.tooLarge })
      : yield* parseSchemaFields(form.schema.text).pipe(Effect.withSpan("describe.schema"))
    const request = { fields, keywords: keywordsUsed(form.keywords?.text), context: contextUsed(form.context?.text), language }
    return { source, request, schemaGiven: form.schema !== undefined }
  })

/**
 * Checks 4 to 6 in a scope of their own: the form's memory and its share of the upload budget go
 * as they end. The prepared pixels are `pixels`' (the caller's scope), for the describer's start.
 */
const prepare = <E extends DescribeError, R>(form: Effect.Effect<DescribeForm, E, R>, accountId: string, pixels: Scope.Scope) =>
  Effect.scoped(Effect.gen(function* () {
    const { source, request, schemaGiven } = yield* Effect.flatMap(form, checkForm)
    const upload = yield* imageBytes(source, accountId)
    yield* addToRequestLog({ imageBytes: upload.size })
    yield* Metric.incrementBy(imageBytesIn, upload.size)
    const describer = yield* Describer
    const image = yield* Effect.flatMap(Images, (images) => images.prepare(upload.bytes, accountId, describer.takesAsUploaded)).pipe(
      Metric.trackDurationWith(imageSeconds, Duration.toSeconds),
      Effect.provideService(Scope.Scope, pixels)
    )
    return { request: { ...request, image } satisfies DescribeRequest, schemaGiven }
  }))

/** By kind and, for a failed generation, reason: a wrong model key (`rejected`) shows apart from an outage (`failed`). */
const countModelError = <A, R>(step: Effect.Effect<A, DescriberError, R>) =>
  Effect.tapError(step, (error) =>
    Metric.increment(Metric.tagged(
      Metric.tagged(modelErrors, "kind", error._tag),
      "reason",
      error._tag === "GenerationFailed" ? error.reason : "too-long"
    )))

/**
 * Checks 4 to 7. The describer starts on the pixels, which are released as their scope closes,
 * whatever happened: the request holds none of them while it waits on the model. The start runs
 * to its end even when the caller goes away: libvips work (the model's JPEG) cannot be cancelled,
 * and releasing pixels it is still reading would pull them from under it.
 */
const describeUpload = <E extends DescribeError, R>(form: Effect.Effect<DescribeForm, E, R>, accountId: string) =>
  Effect.gen(function* () {
    const describer = yield* Describer
    const { fields, language, schemaGiven, started, generation } = yield* Effect.scoped(Effect.gen(function* () {
      const { request, schemaGiven } = yield* prepare(form, accountId, yield* Effect.scope)
      const [started, generation] = yield* Effect.timed(Effect.uninterruptible(describer.start(request))).pipe(countModelError)
      return { fields: request.fields, language: request.language, schemaGiven, started, generation }
    }))
    const [generated, result] = yield* Effect.timed(
      Effect.flatMap(Effect.either(generation), (answer) => answerAsUsed(schemaGiven, answer))
    ).pipe(countModelError)
    const elapsed = Duration.sum(started, generated)
    yield* Metric.update(modelSeconds, Duration.toSeconds(elapsed))
    yield* addToRequestLog({ modelLatencyMs: Math.round(Duration.toMillis(elapsed)) })
    return {
      entries: describeResultEntries(fields, result, schemaGiven),
      language: describer.writtenLanguage(language),
      describer: describer.kind
    } satisfies Described
  })

/**
 * What the usage row records of how a request ended; 200 captures the credit. Stopped midway, it
 * was either the client going away (the platform's interruption, a 499 nobody reads) or the
 * service stopping it at shutdown's deadline (answered 500, retryable), found by review recorded
 * as the client's doing.
 */
const outcomeOf = (exit: Exit.Exit<unknown, DescribeError>): Outcome =>
  Exit.match(exit, {
    onSuccess: () => ({ status: 200, errorKind: null }),
    onFailure: (cause) =>
      Option.match(Cause.failureOption(cause), {
        onSome: (error) => ({ status: failedCheck(error).status, errorKind: error._tag }),
        onNone: () =>
          !Cause.isInterruptedOnly(cause)
            ? { status: 500, errorKind: "Unexpected" }
            : HashSet.has(Cause.interruptors(cause), HttpServerError.clientAbortFiberId)
            ? { status: 499, errorKind: "ClientClosedRequest" }
            : { status: 500, errorKind: "Stopped" }
      })
  })

/**
 * Checks 2 to 7 for a known caller (`keyId` null on the dashboard): a credit held, then captured
 * or released as the request ends. `form` reads the upload once the credit is held, its memory
 * the scope's. `onDescribed` runs on a success before its credit is captured: if it fails, so
 * does the request, uncharged.
 */
export const describeImage = <E extends DescribeError, R, R2 = never>(caller: {
  readonly accountId: AccountId
  readonly keyId: KeyId | null
  readonly form: Effect.Effect<DescribeForm, E, R>
  readonly onDescribed?: (described: Described) => Effect.Effect<void, never, R2>
}) =>
  Effect.flatMap(Credits, (credits) =>
    credits.withCredit({
      accountId: caller.accountId,
      keyId: caller.keyId,
      outcome: outcomeOf,
      onSettled: (creditsAfter) => addToRequestLog({ creditsAfter })
    }, describeUpload(caller.form, caller.accountId).pipe(Effect.tap((described) => caller.onDescribed?.(described) ?? Effect.void))))
