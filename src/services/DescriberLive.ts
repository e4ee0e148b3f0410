/**
 * The describer the app runs (README, "The offline describer"): a model endpoint when the deployment names one
 * (a key or a base URL), otherwise the embedded offline describer, so a fresh checkout works with
 * no account. In production the offline describer must be asked for: a deployment that forgot its
 * model key would otherwise sell placeholder text as descriptions.
 */
import { Config, ConfigError, Effect, Either, Layer, Option } from "effect"
import type { Describer } from "./Describer.ts"
import * as OfflineDescriber from "./OfflineDescriber.ts"
import * as OpenAiConfig from "./openAiConfig.ts"
import * as OpenAiDescriber from "./OpenAiDescriber.ts"

export type DescriberChoice = "offline" | "openai-compatible"

export interface DescriberSettings {
  /** `DESCRIBER`, when set. */
  readonly requested: Option.Option<DescriberChoice>
  /** `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set. */
  readonly modelConfigured: boolean
  /** `NODE_ENV=production` (the Dockerfile sets it). */
  readonly production: boolean
}

export const noModelInProduction =
  "No model endpoint is configured: set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible endpoint). " +
  "NODE_ENV is production, where the offline describer's placeholder text is served only when asked for with DESCRIBER=offline."

export const modelNotConfigured =
  "DESCRIBER=openai-compatible needs OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible endpoint)."

/** Which describer to run, or why the service must not start. */
export const chooseDescriber = (settings: DescriberSettings): Either.Either<DescriberChoice, string> =>
  Option.match(settings.requested, {
    onSome: (choice) =>
      choice === "openai-compatible" && !settings.modelConfigured ? Either.left(modelNotConfigured) : Either.right(choice),
    onNone: () =>
      settings.modelConfigured
        ? Either.right("openai-compatible")
        : settings.production
        ? Either.left(noModelInProduction)
        : Either.right("offline")
  })

const settings: Config.Config<DescriberSettings> = Config.all({
  // Empty counts as unset (`DESCRIBER: ${DESCRIBER:-}` in compose.yaml).
  requested: Config.literal("offline", "openai-compatible", "")("DESCRIBER").pipe(
    Config.option,
    Config.map(Option.filter((choice): choice is DescriberChoice => choice !== ""))
  ),
  modelConfigured: OpenAiConfig.isConfigured,
  // Any case: `NODE_ENV=Production` is as much a production deployment as `production`.
  production: Config.string("NODE_ENV").pipe(Config.withDefault(""), Config.map((env) => env.trim().toLowerCase() === "production"))
})

/** Said once, as loudly as the logger can, so nobody mistakes its text for descriptions. */
const offlineWarning = Effect.logWarning(
  "OFFLINE DESCRIBER: no AI model is configured, so /describe answers with placeholder text made from each image's " +
    "shape, colours and brightness (X-Describer: offline). Set OPENAI_API_KEY or OPENAI_BASE_URL to describe images."
)

export const layer: Layer.Layer<Describer, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const choice = chooseDescriber(yield* settings)
    if (Either.isLeft(choice)) return yield* Effect.fail(ConfigError.MissingData(["OPENAI_API_KEY"], choice.left))
    return choice.right === "openai-compatible"
      ? OpenAiDescriber.layer
      : Layer.merge(OfflineDescriber.layer, Layer.effectDiscard(offlineWarning))
  })
)
