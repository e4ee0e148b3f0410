/**
 * The describer port (issue 3 §7): turns a prepared image and the requested fields into one
 * string per field, or a typed failure. Layers: `OfflineDescriber` (embedded default),
 * `OpenAiDescriber` (any OpenAI-compatible endpoint), and `Describer.scripted` for tests.
 */
import { Context, Effect, Layer } from "effect"
import type { DescribeRequest, DescribeResult } from "../domain/describe.ts"
import type { DescriberError } from "../domain/errors.ts"

export interface DescriberShape {
  /** Human-readable name printed at start-up, e.g. `offline` or `openai-compatible (gpt-4o-mini)`. */
  readonly name: string
  readonly describe: (request: DescribeRequest) => Effect.Effect<DescribeResult, DescriberError>
}

export class Describer extends Context.Tag("Describer")<Describer, DescriberShape>() {
  /**
   * Test layer: each call runs `answer` with the request, so a test scripts values, failures,
   * delays (with `TestClock` or real time) and counts calls.
   */
  static scripted = (
    answer: (request: DescribeRequest) => Effect.Effect<DescribeResult, DescriberError>
  ): Layer.Layer<Describer> => Layer.succeed(Describer, { name: "scripted", describe: answer })

  /** Test layer answering every field with `"<field name> value"`. */
  static echo: Layer.Layer<Describer> = Describer.scripted((request) =>
    Effect.succeed(Object.fromEntries(request.fields.map((field) => [field.name, `${field.name} value`])))
  )
}
