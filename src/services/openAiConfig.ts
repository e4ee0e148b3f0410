/**
 * The model endpoint's settings (README, "Model endpoints"), read once at start-up from `Config`;
 * `DescriberLive` reads `isConfigured` to choose a describer, `OpenAiDescriber` the rest.
 */
import { Config, Option, Redacted } from "effect"

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
export const endpointOf = (settings: OpenAiConfig): string => {
  const url = new URL(settings.baseUrl)
  return `${settings.model} at ${url.origin}${url.pathname.replace(/\/$/, "")}`
}
