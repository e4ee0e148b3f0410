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
import { defaultFieldLeftEmpty } from "../domain/describeAnswer.ts"
import { AnswerTooLong, GenerationFailed } from "../domain/errors.ts"
import { exceedsAnswerBudget } from "../domain/answerBudget.ts"
import { answerBegan, decodeAnswer, thoughtsUnfinished } from "../domain/prompt.ts"
import { retryAfterMillis } from "../domain/retryAfter.ts"
import { cappedFetch, ReplyTooLarge } from "./cappedFetch.ts"
import { isAzureOpenAi, type OpenAiConfig } from "../config/ModelConfig.ts"
import { explained } from "./messageOf.ts"

/**
 * The most of a reply read from the endpoint. §2.2's 1,500 words are about 10 KB of English, some
 * 60 KB in a script whose every character the endpoint escapes as `\uXXXX`; the rest of the reply
 * is a few hundred bytes, or some tens of KB of reasoning text on servers that return it. Past the
 * cap the answer is too long (§4.1 check 7); an endpoint's error body is cut there too.
 */
const maxReplyBytes = 512 * 1024

/** Time-out, network error, 408, 409, 429 or 5xx: worth another attempt, after `retryAfterMs` if the endpoint asked. */
class Transient extends Data.TaggedError("Transient")<{ readonly retryAfterMs: number | undefined }> {}
/** Any other 4xx (bad key, unknown model, unsupported parameter): retrying cannot help. */
class Rejected extends Data.TaggedError("Rejected") {}
/** An answer we cannot use: broken JSON, wrong keys, non-string values, a refusal, or a default field left empty. */
class BadAnswer extends Data.TaggedError("BadAnswer")<{ readonly reason: "invalid-answer" | "refusal" | "empty-answer" }> {}
/** The answer hit the output budget: `finish_reason: "length"`, over §2.2's words, or over the byte cap. */
class TooLong extends Data.TaggedError("TooLong") {}
/**
 * The model spent the output budget before its answer began, on reasoning (o-series, gpt-5,
 * Gemini 2.5, DeepSeek-R1): its fault or the budget's, not the schema's (found by review: a
 * one-field schema was answered §7.1's 400, which a client must not retry).
 */
class BudgetSpent extends Data.TaggedError("BudgetSpent") {}

type CallFailure = Transient | Rejected | BadAnswer | TooLong | BudgetSpent

/** The statuses the `openai` package itself would retry: time-out, lock conflict, rate limit, server error. */
const transientStatus = (status: number | undefined) =>
  status === undefined || status === 408 || status === 409 || status === 429 || status >= 500

const classify = (error: unknown, now: number): Transient | Rejected | TooLong =>
  error instanceof ReplyTooLarge
    ? new TooLong()
    : error instanceof APIError
    ? transientStatus(error.status)
      // No status: a connection error or time-out.
      ? new Transient({ retryAfterMs: retryAfterMillis((name) => error.headers?.get(name) ?? null, now) })
      : new Rejected()
    // A system error thrown while the reply's body was read (`ECONNRESET`: the connection closed
    // mid-answer); anything else (a body that is no JSON) would fail the same way again.
    : isSystemError(error)
    ? new Transient({ retryAfterMs: undefined })
    : new Rejected()

const isSystemError = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"

/** A count a server may leave out or send as `null`: read for the log only. */
const count = Schema.optional(Schema.NullOr(Schema.Number))

/** Text, or text parts as some servers send it (Mistral's `[{ "type": "text", "text": … }]`). */
const Content = Schema.Union(
  Schema.String,
  Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))
)

/** The part of the reply we read. Decoded, not trusted: compatible servers vary. */
const Completion = Schema.Struct({
  choices: Schema.Array(
    Schema.Struct({
      message: Schema.Struct({
        content: Schema.optional(Schema.NullOr(Content)),
        refusal: Schema.optional(Schema.NullOr(Schema.String))
      }),
      finish_reason: Schema.optional(Schema.NullOr(Schema.String))
    })
  ),
  // Read apart (`usageOf`): counts of a shape we do not expect leave a good answer usable.
  usage: Schema.optional(Schema.Unknown)
})
type Completion = typeof Completion.Type

/** Token counts, for the log and for telling a budget spent on reasoning. */
const Usage = Schema.Struct({
  prompt_tokens: count,
  completion_tokens: count,
  total_tokens: count,
  completion_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ reasoning_tokens: count })))
})

/** The reply's token counts, or none when they are missing or of another shape (`"10"`). */
const usageOf = (completion: Completion): Option.Option<typeof Usage.Type> => Schema.decodeUnknownOption(Usage)(completion.usage)

/** An error in a reply whose status said success: its `code`, when a number, is the status it stands for. */
const InBandError = Schema.Struct({ error: Schema.Struct({ code: Schema.optional(Schema.Unknown) }) })

/** The most of an endpoint's text a log line holds: a proxy's error page can be hundreds of KB. */
const loggedChars = 1000

/**
 * An endpoint's text as logged: our key taken out (OpenAI masks a wrong key in its message, but a
 * proxy or a compatible server may echo the `Authorization` header whole), and cut to `loggedChars`.
 */
const loggable = (apiKey: Option.Option<Redacted.Redacted<string>>) => (text: string): string => {
  const withoutKey = Option.match(Option.map(apiKey, Redacted.value), {
    onNone: () => text,
    onSome: (key) => text.replaceAll(key, "<redacted>")
  })
  return withoutKey.length <= loggedChars
    ? withoutKey
    : `${withoutKey.slice(0, loggedChars)}… (${withoutKey.length - loggedChars} more characters)`
}

/**
 * Sends one request. Interruption (the deadline, a client hanging up) aborts the HTTP call
 * through the signal `tryPromise` hands over. Logs the cost of every call; the endpoint's error
 * text goes to the log only, never to the client.
 */
const requestCompletion = (
  client: OpenAI,
  body: ChatCompletionCreateParamsNonStreaming,
  about: { readonly model: string; readonly imageBytes: number },
  logged: (text: string) => string
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
              // With the cause under it: the `openai` package says "Connection error." of a
              // refused connection, an unknown host and a failed TLS handshake alike.
              error: logged(explained(error))
            })
          )
        )
      ),
      Effect.catchAll((error) => Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.fail(classify(error, now))))
    )
    const ms = yield* latencyMs
    const completion = Schema.decodeUnknownOption(Completion)(reply)
    const usage = Option.flatMap(completion, usageOf)
    yield* Effect.logInfo("model call").pipe(
      Effect.annotateLogs({
        ...about,
        latencyMs: ms,
        finishReason: Option.getOrUndefined(Option.flatMapNullable(completion, (c) => c.choices[0]?.finish_reason)),
        promptTokens: Option.getOrUndefined(Option.flatMapNullable(usage, (u) => u.prompt_tokens)),
        completionTokens: Option.getOrUndefined(Option.flatMapNullable(usage, (u) => u.completion_tokens)),
        reasoningTokens: Option.getOrUndefined(Option.flatMapNullable(usage, (u) => u.completion_tokens_details?.reasoning_tokens)),
        totalTokens: Option.getOrUndefined(Option.flatMapNullable(usage, (u) => u.total_tokens))
      })
    )
    if (Option.isSome(completion)) return completion.value
    const text = logged(typeof reply === "string" ? reply : JSON.stringify(reply) ?? String(reply))
    // An error sent with a 200 (OpenRouter's `{"error": {"code": 502, …}}`) counts as its code would.
    const inBand = Schema.decodeUnknownOption(InBandError)(reply)
    if (Option.isSome(inBand)) {
      const code = inBand.value.error.code
      yield* Effect.logWarning("model call failed").pipe(Effect.annotateLogs({ ...about, latencyMs: ms, status: code, error: text }))
      // A code that is no status (`"model_not_found"`) says nothing worth another try.
      return yield* Effect.fail(typeof code === "number" && transientStatus(code) ? new Transient({ retryAfterMs: undefined }) : new Rejected())
    }
    // A proxy's login page, a reply of another API: said, cut, as it came.
    yield* Effect.logWarning("model reply is not a chat completion").pipe(Effect.annotateLogs({ ...about, reply: text }))
    return yield* new BadAnswer({ reason: "invalid-answer" })
  })

/** The text of a message, its parts joined when it came in parts. */
const textOf = (content: typeof Content.Type | null | undefined): string =>
  typeof content === "string" ? content : (content ?? []).map((part) => (part.type === "text" ? part.text ?? "" : "")).join("")

/**
 * Cut off by the budget before its answer began (`answerBegan`: no text, or thoughts whose
 * opening `<think>` was in the prompt, as Qwen3's and DeepSeek-R1's templates put it), thoughts
 * that never ended (a reasoning model served without a reasoning parser), or reasoning most of
 * what was written.
 * A schema is not to blame then (§7.1's 400 is for the answer it asks for).
 */
const spentOnReasoning = (completion: Completion, text: string) => {
  const usage = Option.getOrUndefined(usageOf(completion))
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens ?? 0
  const written = usage?.completion_tokens ?? 0
  return !answerBegan(text) || thoughtsUnfinished(text) || (reasoning > 0 && reasoning * 2 >= written)
}

/**
 * Length first (a cut-off answer is never usable), then refusal, then the fields (§2.1), then the
 * words (§2.2): the endpoint's `finish_reason` is not trusted to have kept to the budget.
 */
const readAnswer = (
  fields: SchemaFields,
  completion: Completion,
  maxOutputTokens: number,
  logged: (text: string) => string
): Effect.Effect<DescribeResult, BadAnswer | TooLong | BudgetSpent> => {
  const choice = completion.choices[0]
  const text = textOf(choice?.message.content)
  const rejected = (reason: string, failure: BadAnswer | TooLong | BudgetSpent, answer?: string) =>
    Effect.zipRight(
      Effect.logWarning("model answer rejected").pipe(Effect.annotateLogs({ reason, ...(answer !== undefined && { answer }) })),
      Effect.fail(failure)
    )
  if (choice?.finish_reason === "length") {
    return spentOnReasoning(completion, text)
      ? rejected(
        `the model spent its whole output budget (MODEL_MAX_OUTPUT_TOKENS=${maxOutputTokens}) before its answer, reasoning: raise the budget or lower the model's reasoning effort`,
        new BudgetSpent()
      )
      : rejected("too-long", new TooLong())
  }
  const refused = (choice?.message.refusal ?? "").trim() !== "" || choice?.finish_reason === "content_filter"
  if (refused) return rejected("refusal", new BadAnswer({ reason: "refusal" }))
  return Either.match(decodeAnswer(fields, text), {
    // What it said, so an operator can tell a model that ignores the format from one that cannot see.
    onLeft: () => rejected("invalid-answer", new BadAnswer({ reason: "invalid-answer" }), logged(text)),
    onRight: (result) =>
      exceedsAnswerBudget(Object.values(result))
        ? rejected("too-long", new TooLong())
        // Unusable (domain/describeAnswer.ts): worth the other try.
        : defaultFieldLeftEmpty(fields, result)
        ? rejected("empty-answer", new BadAnswer({ reason: "empty-answer" }), logged(text))
        : Effect.succeed(result)
  })
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
    case "BudgetSpent":
      return new GenerationFailed({ reason: "budget-spent" })
    case "Transient":
      return new GenerationFailed({ reason: "failed" })
    // Every describe fails so until the settings change (a wrong key, an unknown model): said apart.
    case "Rejected":
      return new GenerationFailed({ reason: "rejected" })
  }
}

/**
 * The model's part of a describe for the given settings: what the returned function closes over
 * (its arguments, the client and the settings) is what a request waiting on the model holds.
 */
export const makeGeneration = (settings: OpenAiConfig) => {
  const client = new OpenAI({
    ...endpointRequests(settings),
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
  const logged = loggable(settings.apiKey)

  return (
    payload: ChatCompletionCreateParamsNonStreaming,
    fields: SchemaFields,
    imageBytes: number
  ): Effect.Effect<DescribeResult, AnswerTooLong | GenerationFailed> => {
    const about = { model: settings.model, imageBytes }
    const completion = requestCompletion(client, payload, about, logged).pipe(
      Effect.retry({ schedule: transientRetries, while: worthRetrying })
    )
    // An unusable answer (bad JSON, wrong keys, refusal, a default field empty) gets one more try, then fails.
    return completion.pipe(
      Effect.flatMap((answer) => readAnswer(fields, answer, settings.maxOutputTokens, logged)),
      Effect.retry({ times: 1, while: (failure) => failure._tag === "BadAnswer" }),
      Effect.mapError(toDescriberError),
      Effect.timeoutFail({
        duration: settings.timeoutMs,
        onTimeout: () => new GenerationFailed({ reason: "timeout" })
      }),
      // The deadline interrupts the call in flight, which then logs nothing of its own.
      Effect.tapError((error) =>
        error._tag === "GenerationFailed" && error.reason === "timeout"
          ? Effect.logWarning("model call timed out").pipe(Effect.annotateLogs({ ...about, timeoutMs: settings.timeoutMs }))
          : Effect.void),
      Effect.withSpan("OpenAiDescriber.describe", { attributes: { model: settings.model, fields: fields.length } })
    )
  }
}

/**
 * Where requests go and what they carry:
 * - The query of `OPENAI_BASE_URL` travels apart: the `openai` package appends its path to the
 *   whole base URL, query included (found by review: Azure's `?api-version=…` became
 *   `?api-version=…%2Fchat%2Fcompletions`).
 * - The client refuses to start without a key; local servers (Ollama, vLLM) need none, so a
 *   placeholder satisfies it and the `Authorization: null` header keeps it off the wire.
 * - Azure takes the key as `api-key`, which its deployment URLs (`/openai/deployments/<name>?api-version=…`)
 *   require, and refuses a request that sends both it and `Authorization`.
 */
export const endpointRequests = (settings: Pick<OpenAiConfig, "apiKey" | "baseUrl">) => {
  const url = new URL(settings.baseUrl)
  const defaultQuery = Object.fromEntries(url.searchParams)
  url.search = ""
  url.hash = ""
  return {
    apiKey: Option.match(settings.apiKey, { onNone: () => "unused", onSome: Redacted.value }),
    baseURL: url.toString(),
    defaultQuery,
    defaultHeaders: Option.match(settings.apiKey, {
      onNone: (): Record<string, string | null> => ({ Authorization: null }),
      onSome: (key): Record<string, string | null> =>
        isAzureOpenAi(settings.baseUrl) ? { "api-key": Redacted.value(key), Authorization: null } : {}
    })
  }
}
