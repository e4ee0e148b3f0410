/**
 * The describer the app runs: a model endpoint when the deployment names one (a key or a base
 * URL), otherwise the embedded offline describer, so a fresh checkout works with no account.
 */
import { Effect, Layer } from "effect"
import type { ConfigError } from "effect/ConfigError"
import type { Describer } from "./Describer.ts"
import * as OfflineDescriber from "./OfflineDescriber.ts"
import * as OpenAiDescriber from "./OpenAiDescriber.ts"

export const layer: Layer.Layer<Describer, ConfigError> = Layer.unwrapEffect(
  Effect.map(OpenAiDescriber.isConfigured, (configured) =>
    configured ? OpenAiDescriber.layer : OfflineDescriber.layer
  )
)
