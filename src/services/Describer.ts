/**
 * The describer port (issue 3 §7): turns a prepared image and the requested fields into one
 * string per field, or a typed failure. Layers: `OfflineDescriber` (embedded default),
 * `OpenAiDescriber` (any OpenAI-compatible endpoint), and `Describer.scripted` for tests.
 */
import { Context, Effect, Layer } from "effect"
import type { DescribeRequest, DescribeResult } from "../domain/describe.ts"
import type { DescriberError } from "../domain/errors.ts"

/** The rest of a describe once the describer has taken what it needs of the pixels. */
export type Generation = Effect.Effect<DescribeResult, DescriberError>

export interface DescriberShape {
  /** The sort of describer, e.g. `offline` or `openai-compatible`: nothing of its settings, so `/readyz` shows it to anyone. */
  readonly kind: string
  /** For the operator, printed at start-up: the kind and its settings, e.g. `openai-compatible (gpt-4o-mini at https://api.openai.com/v1)`. */
  readonly name: string
  /**
   * The describer's work on the pixels (the model's JPEG, the offline describer's facts), giving
   * back the generation, which holds none of them. The route lets the pixels go in between: a
   * request waiting seconds on a model then holds its request to the model (the JPEG as base64,
   * tens of KB), not 2 to 3 MB of pixels.
   * The route runs the start uninterruptibly (libvips work cannot be cancelled), so it is short
   * CPU work; any waiting belongs to the generation.
   */
  readonly start: (request: DescribeRequest) => Effect.Effect<Generation, DescriberError>
  /** Both steps, for callers that hold the image anyway. */
  readonly describe: (request: DescribeRequest) => Effect.Effect<DescribeResult, DescriberError>
}

export class Describer extends Context.Tag("Describer")<Describer, DescriberShape>() {
  /** `settings` (a model, an endpoint) go into the name only. */
  static make = (kind: string, start: DescriberShape["start"], settings?: string): DescriberShape =>
    Describer.of({
      kind,
      name: settings === undefined ? kind : `${kind} (${settings})`,
      start,
      describe: (request) => Effect.flatten(start(request))
    })

  /**
   * Test layer: each call runs `answer` with the request as the generation, so a test scripts
   * values, failures, delays (with `TestClock` or real time) and counts calls. The effect is built
   * at the start; whatever it reads of the request when it runs, it reads after the route let the
   * pixels go.
   */
  static scripted = (
    answer: (request: DescribeRequest) => Effect.Effect<DescribeResult, DescriberError>
  ): Layer.Layer<Describer> => Layer.succeed(Describer, Describer.make("scripted", (request) => Effect.succeed(answer(request))))

  /** Test layer answering every field with `"<field name> value"`. */
  static echo: Layer.Layer<Describer> = Describer.scripted((request) =>
    Effect.succeed(Object.fromEntries(request.fields.map((field) => [field.name, `${field.name} value`])))
  )
}
