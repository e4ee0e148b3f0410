/**
 * The describer for any OpenAI-compatible chat-completions endpoint (OpenAI, Azure OpenAI, Ollama,
 * vLLM, LM Studio, OpenRouter, Gemini...): one request per describe holding the prompt and the
 * image, a strict JSON answer, retries within one deadline. Recipes: `docs/model-endpoints.md`.
 * The settings are in `config/ModelConfig.ts`, the exchange with the endpoint in `openAiCompletion.ts`;
 * this adapter makes the image and the request body and implements the `Describer` port.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import { imageBytesToModel } from "../metrics.ts"
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions"
import sharp from "sharp"
import { type Backdrop, backdropColour, backdropOf } from "../domain/backdrop.ts"
import type { DescribeRequest, PreparedImage } from "../domain/describe.ts"
import { GenerationFailed } from "../domain/errors.ts"
import { languageTag } from "../domain/languageTag.ts"
import { answerJsonSchema, answerSchemaName, promptText } from "../domain/prompt.ts"
import { Describer, type DescriberShape } from "./Describer.ts"
import { makeGeneration } from "./openAiCompletion.ts"
import { endpointOf, ModelConfig, type OpenAiConfig } from "../config/ModelConfig.ts"
import { messageOf } from "./messageOf.ts"

// ---- The image

/**
 * JPEG at quality 80, alpha flattened (domain/backdrop.ts). Measured with sharp 0.35 on two generated
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

/**
 * Standard Huffman tables, not ones computed for the image (sharp's default `optimiseCoding`, with
 * which the sizes above were measured): the same pixels in 13 to 18% more bytes (the bench's
 * 1000x750 photo: 54.5 KB against 47.1), for an encode of 25 M instructions instead of 43 M
 * (docs/BENCHMARKS.md, "Image pipeline"). What a model charges follows the pixel size, not the bytes.
 */
const jpegOptions = { quality: jpegQuality, optimiseCoding: false } as const

/**
 * The model is not called when its image cannot be made; the library's message is for operators.
 * Transparency is flattened on `backdrop` (domain/backdrop.ts).
 */
const encodeJpeg = (image: PreparedImage, backdrop: Backdrop) =>
  Effect.tryPromise(() => {
    const pixels = sharp(image.pixels, { raw: { width: image.width, height: image.height, channels: image.channels } })
    return (image.channels === 4 ? pixels.flatten({ background: backdropColour[backdrop] }) : pixels).jpeg(jpegOptions).toBuffer()
  }).pipe(
    Effect.tapError((error) =>
      Effect.logWarning("The image for the model could not be encoded").pipe(
        Effect.annotateLogs({ reason: messageOf(error.error) })
      )
    ),
    Effect.mapError(() => new GenerationFailed({ reason: "failed" }))
  )

// ---- The describer

export const make = (settings: OpenAiConfig): DescriberShape => {
  const generation = makeGeneration(settings)

  const body = (request: DescribeRequest, imageDataUrl: string, seeThrough: Backdrop | undefined): ChatCompletionCreateParamsNonStreaming => ({
    model: settings.model,
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: promptText(request, seeThrough) },
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

  return Describer.make(`openai-compatible (${endpointOf(settings)})`, {
    start: (request) =>
      Effect.gen(function* () {
        const { image } = request
        // An upload sent as it came is opaque (domain/asUploaded.ts).
        const { backdrop, seeThrough } = image.channels === 4 ? backdropOf(image.pixels) : { backdrop: "white" as const, seeThrough: false }
        const [mediaType, file] = image.asUploaded === undefined
          ? ["image/jpeg", yield* encodeJpeg(image, backdrop)]
          : [`image/${image.source.format}`, Buffer.from(image.asUploaded.buffer, image.asUploaded.byteOffset, image.asUploaded.byteLength)]
        yield* Metric.incrementBy(imageBytesToModel, file.byteLength)
        const payload = body(request, `data:${mediaType};base64,${file.toString("base64")}`, seeThrough ? backdrop : undefined)
        return { payload, fields: request.fields, imageBytes: file.byteLength }
      }).pipe(Effect.withSpan("OpenAiDescriber.encode")),
    generate: ({ payload, fields, imageBytes }) => generation(payload, fields, imageBytes)
  }, { kind: "openai-compatible", writtenLanguage: languageTag, takesAsUploaded: settings.imageAsUploaded })
}

export const layer: Layer.Layer<Describer, never, ModelConfig> = Layer.effect(Describer, Effect.map(ModelConfig, make))
