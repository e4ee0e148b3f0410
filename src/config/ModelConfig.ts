/**
 * The describer's and the model endpoint's settings (README, "Model endpoints"), read once at
 * start-up with every other section (Settings.ts): `DescriberLive` reads `DescriberConfig` to
 * choose a describer, `OpenAiDescriber` reads `ModelConfig`.
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type AsUploadedFormat, asUploadedFormats } from "../domain/asUploaded.ts"
import { secretShown } from "./redact.ts"
import { isHttpUrl } from "./rules.ts"

/** The model client's timer is a 32-bit one: past it, it fired at once, and every describe failed. */
const maxTimerMs = 2 ** 31 - 1

/** One rule: a second `validate` loses the variable's name from its refusal. */
const positiveInteger = (name: string, fallback: number, max?: number) =>
  Config.integer(name).pipe(
    Config.validate({
      message: max === undefined ? "must be a positive integer" : `must be a positive integer of at most ${max} (about ${Math.floor(max / 86_400_000)} days)`,
      validation: (n) => n > 0 && n <= (max ?? n)
    }),
    Config.withDefault(fallback)
  )

/**
 * Trimmed: a secret file keeps its final newline (`kubectl create secret --from-file`), and `fetch`
 * trims a header's value, so the endpoint gets the bare key; it is the one to take out of logged
 * text too (found by review: the untrimmed one was looked for, and an echoed key was logged).
 * An empty variable (`OPENAI_API_KEY=` in an env file) counts as unset.
 */
const apiKey = Config.option(Config.redacted("OPENAI_API_KEY")).pipe(
  Config.map(Option.flatMap((key) => {
    const trimmed = Redacted.value(key).trim()
    return trimmed === "" ? Option.none() : Option.some(Redacted.make(trimmed))
  }))
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
const endpointConfig = Config.all({
  model: Config.nonEmptyString("MODEL").pipe(Config.withDefault("gpt-4o-mini")),
  /** One deadline for the model's part of a describe: every attempt and every pause between them. */
  timeoutMs: positiveInteger("MODEL_TIMEOUT_MS", 60_000, maxTimerMs),
  /** §2.2: about 1,500 words for all fields, at roughly 1.3 to 1.6 tokens per word. */
  maxOutputTokens: positiveInteger("MODEL_MAX_OUTPUT_TOKENS", 2500),
  imageDetail: Config.literal("low", "high", "auto")("MODEL_IMAGE_DETAIL").pipe(Config.withDefault("low")),
  /** `json_object` for endpoints without strict JSON schemas: JSON mode, then our own validation. */
  structuredOutput: Config.literal("json_schema", "json_object")("MODEL_STRUCTURED_OUTPUT").pipe(
    Config.withDefault("json_schema")
  )
})

/** `none`, or a comma-separated list of formats, in any case; undefined when it is neither. */
const asUploadedList = (raw: string): ReadonlyArray<AsUploadedFormat> | undefined => {
  const listed = raw.split(",").map((format) => format.trim().toLowerCase())
  if (listed.length === 1 && listed[0] === "none") return []
  const formats = asUploadedFormats.filter((format) => listed.includes(format))
  return listed.every((format) => formats.some((known) => known === format)) ? formats : undefined
}

/**
 * `MODEL_IMAGE_AS_UPLOADED`: the formats the endpoint is sent as they were uploaded, when a file is
 * already what the model's JPEG would be (docs/model-endpoints.md, "The image the model sees"), or
 * `none`. Unset or empty: JPEG and PNG, which every OpenAI-compatible server decodes, and WebP too
 * for OpenAI's and Azure OpenAI's own APIs; llama.cpp-based servers cannot read WebP.
 */
const imageAsUploaded = Config.string("MODEL_IMAGE_AS_UPLOADED").pipe(
  Config.validate({
    message: `must be \`none\` or a comma-separated list of ${asUploadedFormats.join(", ")}`,
    validation: (raw) => raw.trim() === "" || asUploadedList(raw) !== undefined
  }),
  Config.option,
  Config.map(Option.flatMap((raw) => Option.fromNullable(raw.trim() === "" ? undefined : asUploadedList(raw))))
)

/** The domains of Azure's OpenAI resources: Azure OpenAI, AI Services (Cognitive Services), AI Foundry. */
const azureDomains = [".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com"]

/** An Azure OpenAI resource's address (a host written with its final dot too). */
export const isAzureOpenAi = (baseUrl: string) => {
  const host = new URL(baseUrl).hostname.replace(/\.$/, "")
  return azureDomains.some((domain) => host.endsWith(domain))
}

/** The endpoints whose documentation lists WebP among the image formats they take. */
const takesWebp = (baseUrl: string) => new URL(baseUrl).hostname === "api.openai.com" || isAzureOpenAi(baseUrl)

const defaultAsUploaded = (baseUrl: string): ReadonlyArray<AsUploadedFormat> =>
  takesWebp(baseUrl) ? ["jpeg", "png", "webp"] : ["jpeg", "png"]

export type OpenAiConfig = Config.Config.Success<typeof endpointConfig> & {
  readonly apiKey: Option.Option<Redacted.Redacted>
  readonly baseUrl: string
  readonly imageAsUploaded: ReadonlyArray<AsUploadedFormat>
}

/** `gpt-4o-mini at https://api.openai.com/v1`: no credentials, no query. */
export const endpointOf = (settings: OpenAiConfig): string => {
  const url = new URL(settings.baseUrl)
  return `${settings.model} at ${url.origin}${url.pathname.replace(/\/$/, "")}`
}

export type DescriberChoice = "offline" | "openai-compatible"

export interface DescriberSettings {
  /** `DESCRIBER`, when set. */
  readonly requested: Option.Option<DescriberChoice>
  /** `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set. */
  readonly modelConfigured: boolean
  /** `NODE_ENV=production` (the Dockerfile sets it). */
  readonly production: boolean
}

const describerChoice = Config.all({
  // Empty counts as unset (`DESCRIBER: ${DESCRIBER:-}` in compose.yaml).
  requested: Config.literal("offline", "openai-compatible", "")("DESCRIBER").pipe(
    Config.option,
    Config.map(Option.filter((choice): choice is DescriberChoice => choice !== ""))
  ),
  // Any case: `NODE_ENV=Production` is as much a production deployment as `production`.
  production: Config.string("NODE_ENV").pipe(Config.withDefault(""), Config.map((env) => env.trim().toLowerCase() === "production"))
})

/** Both sections, each variable read once (a refused `OPENAI_BASE_URL` is said once). */
export const modelSettings: Config.Config<{ readonly model: OpenAiConfig; readonly describer: DescriberSettings }> = Config.all({
  apiKey,
  baseUrl,
  endpoint: endpointConfig,
  imageAsUploaded,
  choice: describerChoice
}).pipe(Config.map(({ apiKey, baseUrl, choice, endpoint, imageAsUploaded }) => {
  const url = Option.getOrElse(baseUrl, () => "https://api.openai.com/v1")
  return {
    model: { apiKey, baseUrl: url, ...endpoint, imageAsUploaded: Option.getOrElse(imageAsUploaded, () => defaultAsUploaded(url)) },
    // A key or a base URL: the deployment asked for a model endpoint.
    describer: { ...choice, modelConfigured: Option.isSome(apiKey) || Option.isSome(baseUrl) }
  }
}))

export class ModelConfig extends Context.Tag("ModelConfig")<ModelConfig, OpenAiConfig>() {
  static readonly config = Config.map(modelSettings, (read) => read.model)
}

/** What services/DescriberLive.ts chooses from. */
export class DescriberConfig extends Context.Tag("DescriberConfig")<DescriberConfig, DescriberSettings>() {
  static readonly config = Config.map(modelSettings, (read) => read.describer)
}

/** Query parameters whose values are shown: none other is known not to be a key (`?code=` of Azure Functions). */
const shownParameters = ["api-version"]

/** The base URL as printed: no credentials, no fragment, and of its query only the values known to be harmless. */
const baseUrlShown = (baseUrl: string) => {
  const url = new URL(baseUrl)
  const shown = new URL(`${url.origin}${url.pathname}`)
  for (const [name, value] of url.searchParams) shown.searchParams.append(name, shownParameters.includes(name) ? value : "redacted")
  return shown.toString()
}

/** The describer's and the model's part of the start-up summary, by variable: the key redacted. */
export const modelSummary = (describer: DescriberSettings, model: OpenAiConfig) => ({
  DESCRIBER: Option.getOrElse(describer.requested, () => `unset: ${describer.modelConfigured ? "openai-compatible" : "offline"}`),
  NODE_ENV: describer.production ? "production" : "not production",
  OPENAI_API_KEY: secretShown(model.apiKey, "unset"),
  OPENAI_BASE_URL: baseUrlShown(model.baseUrl),
  MODEL: model.model,
  MODEL_TIMEOUT_MS: model.timeoutMs,
  MODEL_MAX_OUTPUT_TOKENS: model.maxOutputTokens,
  MODEL_IMAGE_DETAIL: model.imageDetail,
  MODEL_STRUCTURED_OUTPUT: model.structuredOutput,
  MODEL_IMAGE_AS_UPLOADED: model.imageAsUploaded.length === 0 ? "none" : model.imageAsUploaded.join(",")
})
