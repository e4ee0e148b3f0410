/**
 * The describer port: turns a prepared image and the requested fields into one string per field,
 * or a typed failure. Layers: `OfflineDescriber` (embedded default), `OpenAiDescriber` (any
 * OpenAI-compatible endpoint), and `Describer.scripted` for tests.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AsUploadedFormat } from "../domain/asUploaded.ts"
import type { DescribeRequest, DescribeResult } from "../domain/describe.ts"
import type { DescriberError } from "../domain/errors.ts"
import { languageTag } from "../domain/languageTag.ts"

/** The rest of a describe once the describer has taken what it needs of the pixels. */
export type Generation = Effect.Effect<DescribeResult, DescriberError>

/** What writes the text, sent as `X-Describer` on every success (README, "The offline describer"). */
export type DescriberKind = "offline" | "openai-compatible" | "scripted"

/** What a describer tells about itself besides its text. */
export interface DescriberIdentity {
  readonly kind: DescriberKind
  /**
   * The language its text is written in for a requested `language` (§4.1), as a BCP 47 tag: the
   * `Content-Language` of every success.
   */
  readonly writtenLanguage: (requested: string) => string
  /** The formats it sends the model as they were uploaded (`PreparedImage.asUploaded`); none by default. */
  readonly takesAsUploaded?: ReadonlyArray<AsUploadedFormat>
}

export interface DescriberShape extends DescriberIdentity {
  /** Human-readable name printed at start-up, e.g. `offline` or `openai-compatible (gpt-4o-mini)`. */
  readonly name: string
  /**
   * The describer's work on the pixels, giving back the generation, which holds none of them
   * (`Describer.make`). The pixels are released in between: a request waiting seconds on a model
   * then holds its request to the model (the JPEG as base64, tens of KB), not 2 to 3 MB of pixels.
   * It runs uninterruptibly (libvips work cannot be cancelled), so it is short CPU work; any
   * waiting belongs to the generation.
   */
  readonly start: (request: DescribeRequest) => Effect.Effect<Generation, DescriberError>
}

/** `T` with every byte buffer in it, at any depth, made `never`: a type that cannot hold pixels. */
export type WithoutBytes<T> = T extends ArrayBufferView | ArrayBufferLike ? never
  : T extends object ? { readonly [K in keyof T]: WithoutBytes<T[K]> }
  : T

/** Accepts an `Input` only when no byte buffer hides in it. */
type PixelFree<Input> = [Input] extends [WithoutBytes<Input>] ? unknown : "the model input must not hold pixels"

/** A describer's two steps, `Input` being what the model needs of a request: never its pixels. */
export interface DescriberSteps<Input> {
  /** Reads the pixels (the model's JPEG, the offline describer's facts) into the model input. */
  readonly start: (request: DescribeRequest) => Effect.Effect<Input, DescriberError>
  /** Sees the model input alone: the pixels are gone by the time it runs. */
  readonly generate: (input: Input) => Generation
}

export class Describer extends Context.Tag("Describer")<Describer, DescriberShape>() {
  /** A test's describer (no identity given) is `scripted` and writes the language it is asked for. */
  static make = <Input>(
    name: string,
    steps: DescriberSteps<Input> & PixelFree<Input>,
    identity: DescriberIdentity = { kind: "scripted", writtenLanguage: languageTag }
  ): DescriberShape =>
    Describer.of({ name, ...identity, start: (request) => Effect.map(steps.start(request), steps.generate) })

  /**
   * Test layer: each call runs `answer` with the request as the generation, so a test scripts
   * values, failures, delays (with `TestClock` or real time) and counts calls. It runs after the
   * pixels are gone, so it sees the request without its image.
   */
  static scripted = (
    answer: (request: Omit<DescribeRequest, "image">) => Generation
  ): Layer.Layer<Describer> =>
    Layer.succeed(Describer, Describer.make("scripted", {
      start: ({ image: _image, ...request }) => Effect.succeed(request),
      generate: answer
    }))

  /** Test layer answering every field with `"<field name> value"`. */
  static echo: Layer.Layer<Describer> = Describer.scripted((request) =>
    Effect.succeed(Object.fromEntries(request.fields.map((field) => [field.name, `${field.name} value`])))
  )
}
