/**
 * The describer for any OpenAI-compatible chat-completions endpoint (OpenAI, Azure OpenAI, Ollama,
 * vLLM, LM Studio, OpenRouter, Gemini...): one request per describe holding the prompt and the
 * image, a strict JSON answer, retries within one deadline. Recipes: `docs/model-endpoints.md`.
 */
import { Clock, Config, Data, Effect, Either, Layer, Metric, Option, Redacted, Schedule, Schema } from "effect"
import { imageBytesToModel } from "../metrics.ts"
import type { ConfigError } from "effect/ConfigError"
import { APIError, OpenAI } from "openai"
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions"
import sharp from "sharp"
import type { DescribeRequest, DescribeResult, PreparedImage, SchemaFields } from "../domain/describe.ts"
import { AnswerTooLong, GenerationFailed } from "../domain/errors.ts"
import { exceedsAnswerBudget } from "../domain/answerBudget.ts"
import { languageTag, loadLanguageNames } from "../domain/languageTag.ts"
import { answerJsonSchema, answerSchemaName, decodeAnswer, promptText } from "../domain/prompt.ts"
import { cappedFetch, ReplyTooLarge } from "./cappedFetch.ts"
import { Describer, type DescriberShape } from "./Describer.ts"

// ---- Configuration

const isHttpUrl = (value: string) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)

const positiveInteger = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: "must be a positive integer", validation: (n) => n > 0 }),
    Config.withDefault(fallback)
  )

/** An empty variable (`OPENAI_API_KEY=` in an env file) counts as unset. */
const apiKey = Config.option(Config.redacted("OPENAI_API_KEY")).pipe(
  Config.map(Option.filter((key) => Redacted.value(key).trim() !== ""))
)

const baseUrl = Config.string("OPENAI_BASE_URL").pipe(
  Config.validate({ message: "must be an http(s) URL", validation: (url) => url.trim() === "" || isHttpUrl(url.trim()) }),
  Config.option,
  Config.map(Option.map((url) => url.trim())),
  Config.map(Option.filter((url) => url !== ""))
)

/**
 * The settings, read once at start-up; printing them is safe (the key shows as `<redacted>`).
 *
 * `imageDetail` defaults to `low`: the model sees the image at 512 px for a fixed price, 85
 * tokens on gpt-4o and 2,833 on gpt-4o-mini (OpenAI's published image-token rules). `high` tiles
 * a 1000x750 image into four 512 px tiles: 765 tokens on gpt-4o, 25,501 on gpt-4o-mini, nine
 * times the input cost; `auto` leaves the choice to the model, so the cost is not predictable.
 * Titles, alt text and captions describe the whole scene, which 512 px shows; set `high` for
 * schemas that read small text. Endpoints other than OpenAI and Azure ignore the field.
 */
export const config = Config.all({
  apiKey,
  baseUrl: Config.map(baseUrl, Option.getOrElse(() => "https://api.openai.com/v1")),
  model: Config.nonEmptyString("MODEL").pipe(Config.withDefault("gpt-4o-mini")),
  /** One deadline for the model's part of a describe: every attempt and every pause between them. */
  timeoutMs: positiveInteger("MODEL_TIMEOUT_MS", 60_000),
  /** §2.2: about 1,500 words for all fields, at roughly 1.3 to 1.6 tokens per word. */
  maxOutputTokens: positiveInteger("MODEL_MAX_OUTPUT_TOKENS", 2500),
  imageDetail: Config.literal("low", "high", "auto")("MODEL_IMAGE_DETAIL").pipe(Config.withDefault("low")),
  /** `json_object` for endpoints without strict JSON schemas: JSON mode, then our own validation. */
  structuredOutput: Config.literal("json_schema", "json_object")("MODEL_STRUCTURED_OUTPUT").pipe(
    Config.withDefault("json_schema")
  )
})

export type OpenAiConfig = Config.Config.Success<typeof config>

/** True when a key or a base URL is set: the deployment asked for a model endpoint. */
export const isConfigured: Config.Config<boolean> = Config.map(
  Config.all([apiKey, baseUrl]),
  ([key, url]) => Option.isSome(key) || Option.isSome(url)
)

/** `gpt-4o-mini at https://api.openai.com/v1`: no credentials, no query. */
const endpointOf = (settings: OpenAiConfig): string => {
  const url = new URL(settings.baseUrl)
  return `${settings.model} at ${url.origin}${url.pathname.replace(/\/$/, "")}`
}

// ---- The image

/**
 * JPEG at quality 80, alpha flattened on white. Measured with sharp 0.35 on two generated
 * 1000x750 images (a noisy landscape-like scene; a flat poster with text), bytes and PSNR:
 *
 *   quality        50           70           80           85           90
 *   photo  JPEG  61 KB 30.0dB  104 KB 30.9  155 KB 32.0  198 KB 33.4  263 KB 36.0
 *          WebP  86 KB 31.2    128 KB 33.2  171 KB 35.7  205 KB 37.7  256 KB 40.4
 *   poster JPEG  22 KB 37.4     27 KB 39.3   32 KB 41.1   35 KB 42.2   41 KB 43.6
 *          WebP  11 KB 39.1     13 KB 42.1   15 KB 43.1   17 KB 43.9   19 KB 44.4
 *
 * (raw RGBA is 3,000 KB; PNG 1,523 KB and 45 KB). From 80 to 90 costs +70% bytes on the photo
 * for detail the model downsamples away (it looks at 512 px tiles); below 70 text edges blur.
 * mozjpeg saves another third but took 118 ms per image against 12 ms: not worth it. JPEG
 * rather than WebP because every OpenAI-compatible server decodes JPEG, not all decode WebP
 * (llama.cpp-based ones), and WebP only wins on flat graphics.
 */
const jpegQuality = 80

/** The model is not called when its image cannot be made; the library's message is for operators. */
const encodeJpeg = (image: PreparedImage) =>
  Effect.tryPromise(() => {
    const pixels = sharp(image.pixels, { raw: { width: image.width, height: image.height, channels: image.channels } })
    return (image.channels === 4 ? pixels.flatten({ background: "#ffffff" }) : pixels).jpeg({ quality: jpegQuality }).toBuffer()
  }).pipe(
    Effect.tapError((error) =>
      Effect.logWarning("The image for the model could not be encoded").pipe(
        Effect.annotateLogs({ reason: error.error instanceof Error ? error.error.message : String(error.error) })
      )
    ),
    Effect.mapError(() => new GenerationFailed({ reason: "failed" }))
  )

// ---- One model call

/**
 * The most of a reply read from the endpoint. §2.2's 1,500 words are about 10 KB of English, some
 * 60 KB in a script whose every character the endpoint escapes as `\uXXXX`; the rest of the reply
 * is a few hundred bytes, or some tens of KB of reasoning text on servers that return it. Past the
 * cap the answer is too long (§4.1 check 7); an endpoint's error body is cut there too.
 */
const maxReplyBytes = 512 * 1024

/** Time-out, network error, 429 or 5xx: worth another attempt. */
class Transient extends Data.TaggedError("Transient") {}
/** Any other 4xx (bad key, unknown model, unsupported parameter): retrying cannot help. */
class Rejected extends Data.TaggedError("Rejected") {}
/** An answer we cannot use: broken JSON, wrong keys, non-string values, or a refusal. */
class BadAnswer extends Data.TaggedError("BadAnswer")<{ readonly reason: "invalid-answer" | "refusal" }> {}
/** The answer hit the output budget: `finish_reason: "length"`, over §2.2's words, or over the byte cap. */
class TooLong extends Data.TaggedError("TooLong") {}

type CallFailure = Transient | Rejected | BadAnswer | TooLong

const classify = (error: unknown): Transient | Rejected | TooLong =>
  error instanceof ReplyTooLarge
    ? new TooLong()
    : error instanceof APIError && (error.status === undefined || error.status === 429 || error.status >= 500)
    ? new Transient() // no status: a connection error or time-out
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
 * Sends one request. Interruption (the deadline, a client hanging up) aborts the HTTP call
 * through the signal `tryPromise` hands over. Logs the cost of every call; the endpoint's error
 * text goes to the log only, never to the client.
 */
const requestCompletion = (
  client: OpenAI,
  body: ChatCompletionCreateParamsNonStreaming,
  about: { readonly model: string; readonly imageBytes: number }
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
              error: error instanceof Error ? error.message : String(error)
            })
          )
        )
      ),
      Effect.mapError(classify)
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

// ---- The describer

/**
 * Transient failures (time-outs, network errors, 429, 5xx): three retries at about 0.25, 0.5
 * and 1 s, so a failing endpoint answers "failed" within seconds; the deadline bounds them too.
 */
const transientRetries = Schedule.exponential("250 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(3)))

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

export const make = (settings: OpenAiConfig): DescriberShape => {
  loadLanguageNames()
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

  const body = (request: DescribeRequest, imageDataUrl: string): ChatCompletionCreateParamsNonStreaming => ({
    model: settings.model,
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: promptText(request) },
          { type: "image_url", image_url: { url: imageDataUrl, detail: settings.imageDetail } }
        ]
      }
    ],
    response_format:
      settings.structuredOutput === "json_schema"
        ? {
            type: "json_schema",
            json_schema: { name: answerSchemaName, strict: true, schema: answerJsonSchema(request.fields) }
          }
        : { type: "json_object" },
    // `max_completion_tokens`, not the deprecated `max_tokens`: OpenAI's reasoning and newer models
    // (o-series, gpt-5) reject `max_tokens` with a 400, while servers that only know `max_tokens`
    // (Ollama, LM Studio) ignore the unknown field: the deadline still bounds the answer there.
    max_completion_tokens: settings.maxOutputTokens
  })

  /**
   * The model's part, built from the request body and the fields alone: what it closes over is
   * what a request waiting on the model holds.
   */
  const generation = (
    payload: ChatCompletionCreateParamsNonStreaming,
    fields: SchemaFields,
    imageBytes: number
  ): Effect.Effect<DescribeResult, AnswerTooLong | GenerationFailed> => {
    const completion = requestCompletion(client, payload, { model: settings.model, imageBytes }).pipe(
      Effect.retry({ schedule: transientRetries, while: (failure) => failure._tag === "Transient" })
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

  return Describer.make(`openai-compatible (${endpointOf(settings)})`, {
    start: (request) =>
      Effect.gen(function* () {
        const jpeg = yield* encodeJpeg(request.image)
        yield* Metric.incrementBy(imageBytesToModel, jpeg.byteLength)
        const payload = body(request, `data:image/jpeg;base64,${jpeg.toString("base64")}`)
        return { payload, fields: request.fields, imageBytes: jpeg.byteLength }
      }).pipe(Effect.withSpan("OpenAiDescriber.encode")),
    generate: ({ payload, fields, imageBytes }) => generation(payload, fields, imageBytes)
  }, { kind: "openai-compatible", writtenLanguage: languageTag })
}

export const layer: Layer.Layer<Describer, ConfigError> = Layer.effect(Describer, Effect.map(config, make))
