/**
 * The embedded describer used when no AI model is configured (README, "The offline describer"). It
 * cannot see, so it only reports what it measures (size, orientation, colours, brightness,
 * transparency, animation) and, in a keywords field, the client's keywords; fields it cannot answer
 * are empty. Deterministic and infallible: no clock, no randomness, and its answers stay far below
 * the §2.2 size limit.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { imageFacts } from "../domain/imageFacts.ts"
import { offlineLanguageTag, resolveLanguage } from "../domain/offlineLanguage.ts"
import { writeFields } from "../domain/offlineText.ts"
import { Describer } from "./Describer.ts"

export const layer: Layer.Layer<Describer> = Layer.succeed(
  Describer,
  // All its work is on the pixels: the start measures them, the generation writes from the facts.
  Describer.make("offline", {
    start: (request) =>
      Effect.sync(() => ({
        facts: imageFacts(request.image),
        fields: request.fields,
        keywords: request.keywords,
        language: request.language
      })).pipe(
        Effect.withSpan("OfflineDescriber.describe", {
          attributes: { fields: request.fields.length, language: request.language }
        })
      ),
    generate: (input) => Effect.succeed(writeFields(input))
  }, { kind: "offline", writtenLanguage: (requested) => offlineLanguageTag[resolveLanguage(requested)] })
)
