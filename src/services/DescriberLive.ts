/**
 * The describer the app runs (README, "The offline describer"): a model endpoint when the deployment names one
 * (a key or a base URL), otherwise the embedded offline describer, so a fresh checkout works with
 * no account. In production the offline describer must be asked for: a deployment that forgot its
 * model key would otherwise sell placeholder text as descriptions.
 */
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { DescriberConfig, type DescriberChoice, type DescriberSettings, type ModelConfig } from "../config/ModelConfig.ts"
import type { Describer } from "./Describer.ts"
import * as OfflineDescriber from "./OfflineDescriber.ts"
import * as OpenAiDescriber from "./OpenAiDescriber.ts"

export type { DescriberChoice, DescriberSettings }

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

/** Said once, as loudly as the logger can, so nobody mistakes its text for descriptions. */
const offlineWarning = Effect.logWarning(
  "OFFLINE DESCRIBER: no AI model is configured, so /describe answers with placeholder text made from each image's " +
    "shape, colours and brightness (X-Describer: offline). Set OPENAI_API_KEY or OPENAI_BASE_URL to describe images."
)

export const layer: Layer.Layer<Describer, ConfigError.ConfigError, DescriberConfig | ModelConfig> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const choice = chooseDescriber(yield* DescriberConfig)
    if (Either.isLeft(choice)) return yield* Effect.fail(ConfigError.MissingData(["OPENAI_API_KEY"], choice.left))
    return choice.right === "openai-compatible"
      ? OpenAiDescriber.layer
      : Layer.merge(OfflineDescriber.layer, Layer.effectDiscard(offlineWarning))
  })
)
