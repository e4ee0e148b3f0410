/**
 * The baseline of benchmark 5: `POST /api/describe` written the common way, as a plain
 * `Bun.serve` handler: `request.formData()` (the whole body in memory), the image decoded at full
 * size to raw pixels, then resized to 1,000 px, then handed to the same model adapter as the
 * service (`OpenAiDescriber`, so the JPEG sent to the model and the HTTP call are identical) and
 * the same fake model. Bun and sharp at their defaults (body limit 128 MB, libvips cache on).
 *
 * It does less than the service, which only favours it: no database (the key is compared with a
 * fixed string, no credit is reserved or settled, no usage row), no schema, keywords or language.
 *
 * Run by the benches as a child process: `PORT`, `HOST`, `OPENAI_BASE_URL`, `BASELINE_KEY`.
 */
import { Effect, Either } from "effect"
import sharp from "sharp"
import { defaultFields, type ImageFormat } from "../../src/domain/describe.ts"
import { ModelConfig } from "../../src/config/ModelConfig.ts"
import * as OpenAiDescriber from "../../src/services/OpenAiDescriber.ts"

const MB = 1024 * 1024
const key = process.env["BASELINE_KEY"] ?? "baseline-bench-key"
const describer = OpenAiDescriber.make(Effect.runSync(ModelConfig.config))

const error = (status: number, message: string) => Response.json({ error: message }, { status })

const isFormat = (format: string | undefined): format is ImageFormat =>
  format === "jpeg" || format === "png" || format === "webp" || format === "gif"

const describe = async (request: Request): Promise<Response> => {
  if (request.headers.get("authorization") !== `Bearer ${key}`) return error(401, "Unauthorized")
  const form = await request.formData().catch(() => undefined)
  if (form === undefined) return error(400, "Bad Request, multipart form expected")
  const image = form.get("image")
  if (!(image instanceof Blob)) return error(400, "No file uploaded")
  if (image.size > 10 * MB) return error(413, "Image too large")
  const bytes = new Uint8Array(await image.arrayBuffer())

  try {
    const metadata = await sharp(bytes).metadata()
    if (!isFormat(metadata.format)) return error(400, "Invalid image file")
    // Full-size decode to raw pixels, then the resize.
    const full = await sharp(bytes).rotate().raw().toBuffer({ resolveWithObject: true })
    // The bench's inputs are RGB or RGBA.
    const channels = full.info.channels === 4 ? 4 : 3
    const resized = await sharp(full.data, { raw: { width: full.info.width, height: full.info.height, channels } })
      .resize({ width: 1000, height: 1000, fit: "inside", withoutEnlargement: true })
      .raw()
      .toBuffer({ resolveWithObject: true })

    const result = await Effect.runPromise(Effect.either(Effect.flatten(describer.start({
      image: {
        source: {
          format: metadata.format,
          bytes: bytes.length,
          width: full.info.width,
          height: full.info.height,
          frames: metadata.pages ?? 1,
          hasAlpha: metadata.hasAlpha
        },
        width: resized.info.width,
        height: resized.info.height,
        channels,
        pixels: resized.data
      },
      fields: defaultFields,
      keywords: "",
      context: "",
      language: "en"
    }))))
    if (Either.isLeft(result)) return error(500, "Generation failed")
    return Response.json({ ...result.right, alt_text: result.right["alternativeText"] ?? "" })
  } catch {
    return error(400, "Image processing failed")
  }
}

const server = Bun.serve({
  port: Number(process.env["PORT"] ?? 3001),
  hostname: process.env["HOST"] ?? "127.0.0.1",
  fetch: async (request) => {
    const { pathname } = new URL(request.url)
    if (request.method === "POST" && pathname === "/api/describe") return describe(request)
    if (pathname === "/healthz") return Response.json({ status: "ok" })
    // Bun alone: a handler that leaves the body unread for 3 s, then reads it (how much Bun
    // buffers of bodies nobody consumes yet).
    if (request.method === "POST" && pathname === "/hold") {
      await Bun.sleep(3_000)
      await request.arrayBuffer()
      return Response.json({})
    }
    // The transport floor: read the body, answer at once.
    if (request.method === "POST" && pathname === "/null") {
      await request.arrayBuffer()
      return Response.json({})
    }
    return error(404, "Not found")
  }
})

console.log(`baseline listening on ${server.url}`)
