/**
 * One describe's exchange with an OpenAI-compatible chat-completions endpoint, once its request
 * body is made: the call, the part of the reply we read, the checks on the answer (§2.1, §2.2),
 * the retries within one deadline, and the translation of every failure into the describer's.
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { APIError, OpenAI } from "openai"
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions"
import type { DescribeResult, SchemaFields } from "../domain/describe.ts"
import { AnswerTooLong, GenerationFailed } from "../domain/errors.ts"
import { exceedsAnswerBudget } from "../domain/answerBudget.ts"
import { decodeAnswer } from "../domain/prompt.ts"
import { retryAfterMillis } from "../domain/retryAfter.ts"
import { cappedFetch, ReplyTooLarge } from "./cappedFetch.ts"
import type { OpenAiConfig } from "../config/ModelConfig.ts"
import { messageOf } from "./messageOf.ts"

/**
 * The most of a reply read from the endpoint. §2.2's 1,500 words are about 10 KB of English, some
 * 60 KB in a script whose every character the endpoint escapes as `\uXXXX`; the rest of the reply
 * is a few hundred bytes, or some tens of KB of reasoning text on servers that return it. Past the
 * cap the answer is too long (§4.1 check 7); an endpoint's error body is cut there too.
 */
const maxReplyBytes = 512 * 1024

/** Time-out, network error, 429 or 5xx: worth another attempt, after `retryAfterMs` if the endpoint asked. */
class Transient extends Data.TaggedError("Transient")<{ readonly retryAfterMs: number | undefined }> {}
/** Any other 4xx (bad key, unknown model, unsupported parameter): retrying cannot help. */
class Rejected extends Data.TaggedError("Rejected") {}
/** An answer we cannot use: broken JSON, wrong keys, non-string values, or a refusal. */
class BadAnswer extends Data.TaggedError("BadAnswer")<{ readonly reason: "invalid-answer" | "refusal" }> {}
/** The answer hit the output budget: `finish_reason: "length"`, over §2.2's words, or over the byte cap. */
class TooLong extends Data.TaggedError("TooLong") {}

type CallFailure = Transient | Rejected | BadAnswer | TooLong

const classify = (error: unknown, now: number): Transient | Rejected | TooLong =>
  error instanceof ReplyTooLarge
    ? new TooLong()
    : error instanceof APIError && (error.status === undefined || error.status === 429 || error.status >= 500)
    // No status: a connection error or time-out.
    ? new Transient({ retryAfterMs: retryAfterMillis((name) => error.headers?.get(name) ?? null, now) })
    : new Rejected()

/** The part of the reply we read. Decoded, not trusted: compatible servers vary. */
const Completion = Schema.Struct({
  choices: Schema.Array(
    Schema.Struct({
      message: Schema.Struct({
        content: Schema.optional(Schema.NullOr(Schema.String)),
        refusal: Schema.optional(Schema.NullOr(Schema.String))
      }),
      finish_reason: Schema.optional(Schema.NullOr(Schema.String))
    })
  ),
  usage: Schema.optional(
    Schema.NullOr(
      Schema.Struct({ prompt_tokens: Schema.Number, completion_tokens: Schema.Number, total_tokens: Schema.Number })
    )
  )
})
type Completion = typeof Completion.Type

/**
 * An endpoint's error text with our key taken out: OpenAI masks a wrong key in its message, but a
 * proxy or a compatible server may echo the `Authorization` header whole, and the text is logged.
 */
const keyRemover = (apiKey: Option.Option<Redacted.Redacted<string>>) => (text: string): string =>
  Option.match(Option.filter(Option.map(apiKey, Redacted.value), (key) => key !== ""), {
    onNone: () => text,
    onSome: (key) => text.replaceAll(key, "<redacted>")
  })

/**
 * Sends one request. Interruption (the deadline, a client hanging up) aborts the HTTP call
 * through the signal `tryPromise` hands over. Logs the cost of every call; the endpoint's error
 * text goes to the log only, never to the client.
 */
const requestCompletion = (
  client: OpenAI,
  body: ChatCompletionCreateParamsNonStreaming,
  about: { readonly model: string; readonly imageBytes: number },
  withoutKey: (text: string) => string
) =>
  Effect.gen(function* () {
    const started = yield* Clock.currentTimeMillis
    const latencyMs = Effect.map(Clock.currentTimeMillis, (now) => now - started)
    const reply = yield* Effect.tryPromise({
      try: (signal) => client.chat.completions.create(body, { signal }),
      catch: (error) => error
    }).pipe(
      Effect.tapError((error) =>
        Effect.flatMap(latencyMs, (ms) =>
          Effect.logWarning("model call failed").pipe(
            Effect.annotateLogs({
              ...about,
              latencyMs: ms,
              status: error instanceof APIError ? error.status : undefined,
              error: withoutKey(messageOf(error))
            })
          )
        )
      ),
      Effect.catchAll((error) => Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.fail(classify(error, now))))
    )
    const ms = yield* latencyMs
    const completion = Schema.decodeUnknownOption(Completion)(reply)
    const usage = Option.flatMapNullable(completion, (c) => c.usage)
    yield* Effect.logInfo("model call").pipe(
      Effect.annotateLogs({
        ...about,
        latencyMs: ms,
        finishReason: Option.getOrUndefined(Option.flatMapNullable(completion, (c) => c.choices[0]?.finish_reason)),
        promptTokens: Option.getOrUndefined(Option.map(usage, (u) => u.prompt_tokens)),
        completionTokens: Option.getOrUndefined(Option.map(usage, (u) => u.completion_tokens)),
        totalTokens: Option.getOrUndefined(Option.map(usage, (u) => u.total_tokens))
      })
    )
    return yield* Option.match(completion, {
      onNone: () => Effect.fail(new BadAnswer({ reason: "invalid-answer" })),
      onSome: Effect.succeed
    })
  })

/**
 * Length first (a cut-off answer is never usable), then refusal, then the fields (§2.1), then the
 * words (§2.2): the endpoint's `finish_reason` is not trusted to have kept to the budget.
 */
const readAnswer = (fields: SchemaFields, completion: Completion): Effect.Effect<DescribeResult, BadAnswer | TooLong> => {
  const choice = completion.choices[0]
  if (choice?.finish_reason === "length") return Effect.fail(new TooLong())
  const refused = (choice?.message.refusal ?? "").trim() !== "" || choice?.finish_reason === "content_filter"
  const answer = refused
    ? Either.left(new BadAnswer({ reason: "refusal" }))
    : Either.mapLeft(decodeAnswer(fields, choice?.message.content ?? ""), () => new BadAnswer({ reason: "invalid-answer" }))
  return Effect.tapError(answer, (failure) =>
    Effect.logWarning("model answer rejected").pipe(Effect.annotateLogs({ reason: failure.reason }))
  ).pipe(Effect.filterOrFail((result) => !exceedsAnswerBudget(Object.values(result)), () => new TooLong()))
}

/**
 * Transient failures (time-outs, network errors, 429, 5xx): three retries at about 0.25, 0.5
 * and 1 s, so a failing endpoint answers "failed" within seconds; the deadline bounds them too.
 * An endpoint that asks for a longer wait (`Retry-After`) gets it, up to `longestWaitAsked`;
 * one that asks for more is not retried: the describe fails now rather than hammer it or hold
 * the client's request for that long (a 500, which clients may retry later, §7.3).
 */
const transientRetries = Schedule.exponential("250 millis").pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(3)),
  Schedule.intersect(Schedule.identity<CallFailure>()),
  Schedule.modifyDelay(([, failure], delay) =>
    failure._tag === "Transient" && failure.retryAfterMs !== undefined ? Duration.max(delay, Duration.millis(failure.retryAfterMs)) : delay)
)

/** The longest `Retry-After` a describe waits out. */
export const longestWaitAsked = Duration.seconds(5)

const worthRetrying = (failure: CallFailure) =>
  failure._tag === "Transient" && (failure.retryAfterMs === undefined || failure.retryAfterMs <= Duration.toMillis(longestWaitAsked))

const toDescriberError = (failure: CallFailure | GenerationFailed): AnswerTooLong | GenerationFailed => {
  switch (failure._tag) {
    case "GenerationFailed":
      return failure
    case "TooLong":
      return new AnswerTooLong()
    case "BadAnswer":
      return new GenerationFailed({ reason: failure.reason })
    case "Transient":
    case "Rejected":
      return new GenerationFailed({ reason: "failed" })
  }
}

/**
 * The model's part of a describe for the given settings: what the returned function closes over
 * (its arguments, the client and the settings) is what a request waiting on the model holds.
 */
export const makeGeneration = (settings: OpenAiConfig) => {
  const client = new OpenAI({
    // The client refuses to start without a key; local servers (Ollama, vLLM) need none, so a
    // placeholder satisfies it and the `Authorization: null` header below keeps it off the wire.
    apiKey: Option.match(settings.apiKey, { onNone: () => "unused", onSome: Redacted.value }),
    baseURL: settings.baseUrl,
    ...(Option.isNone(settings.apiKey) && { defaultHeaders: { Authorization: null } }),
    // Effect owns retries and the deadline; the client's own would multiply them.
    maxRetries: 0,
    timeout: settings.timeoutMs,
    // Only our configuration counts: no OPENAI_ORG_ID / OPENAI_PROJECT_ID read behind our back.
    organization: null,
    project: null,
    // Failures are logged through Effect with annotations, not by the client on the console.
    logLevel: "off",
    fetch: cappedFetch(maxReplyBytes)
  })
  const withoutKey = keyRemover(settings.apiKey)

  return (
    payload: ChatCompletionCreateParamsNonStreaming,
    fields: SchemaFields,
    imageBytes: number
  ): Effect.Effect<DescribeResult, AnswerTooLong | GenerationFailed> => {
    const completion = requestCompletion(client, payload, { model: settings.model, imageBytes }, withoutKey).pipe(
      Effect.retry({ schedule: transientRetries, while: worthRetrying })
    )
    // An unusable answer (bad JSON, wrong keys, refusal) gets one more try, then fails.
    return completion.pipe(
      Effect.flatMap((answer) => readAnswer(fields, answer)),
      Effect.retry({ times: 1, while: (failure) => failure._tag === "BadAnswer" }),
      Effect.mapError(toDescriberError),
      Effect.timeoutFail({
        duration: settings.timeoutMs,
        onTimeout: () => new GenerationFailed({ reason: "timeout" })
      }),
      Effect.withSpan("OpenAiDescriber.describe", { attributes: { model: settings.model, fields: fields.length } })
    )
  }
}
