/**
 * Check 6 of spec §4.1: the uploaded bytes become the one `PreparedImage` the describer receives,
 * or one of the image errors of §7.1. Layers: `Images.layer` (sharp/libvips) and, for tests,
 * `Images.scripted` and `Images.fixed`.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import sharp, { type SharpOptions } from "sharp"
import { type AsUploadedFormat, sentAsUploaded } from "../domain/asUploaded.ts"
import type { ImageFormat, PreparedImage } from "../domain/describe.ts"
import type { ImageError } from "../domain/errors.ts"
import { ImageProcessingFailed, ImageTooLarge, ImageTooManyFrames, ImageTooManyPixels, ImageTooManyScans, InvalidImageFile } from "../domain/errors.ts"
import { detectImageFormat, imageFormatName } from "../domain/imageFormat.ts"
import { jpegScans, type JpegScans, withoutStrays } from "../domain/jpegMarkers.ts"
import { maxJpegScans, maxPixels, maxWebpFrames, pixelLimitOf } from "../domain/pixelLimits.ts"
import { pngHeader } from "../domain/pngHeader.ts"
import { webpFrames } from "../domain/webpChunks.ts"
import { limits } from "../domain/limits.ts"
import { makeFairPermits } from "./fairPermits.ts"
import { releaseNow } from "./memory.ts"
import { acquireRelease } from "./scopedRelease.ts"
import { messageOf } from "./messageOf.ts"

export interface ImagesShape {
  /**
   * Check 6 of spec §4.1: turns the uploaded bytes into the one PreparedImage the describer
   * receives. `owner` (the account) bounds how many decodes one caller holds at once. A file of
   * one of the `takesAsUploaded` formats that the model may take as it came (`sentAsUploaded`) is
   * only checked to decode, at 1/16 scale. The pixels are the scope's: released when it
   * closes, so nothing may read them after.
   */
  readonly prepare: (
    bytes: Uint8Array,
    owner: string,
    takesAsUploaded?: ReadonlyArray<AsUploadedFormat>
  ) => Effect.Effect<PreparedImage, ImageError, Scope.Scope>
}

/**
 * Wall time one decode may take. libvips checks it between regions of output, so it cuts short
 * work that progresses slowly; work done in one piece inside the loader (a progressive JPEG's
 * scans are all read before the first row comes out) is bounded by the scan and pixel limits.
 */
export const decodeTimeoutSeconds = 10

/**
 * Images decoded at once: one per core of the 2-core target, each on one libvips thread, and one
 * more that no single account can take, so that one account's slow uploads never leave the
 * others waiting for a slot (its own queue behind each other).
 */
const parallelImages = 2
const decodeSlots = parallelImages + 1

/** The only libvips loaders left callable: the buffer loaders of the four formats of §8. */
const allowedLoaders = [
  "VipsForeignLoadJpegBuffer",
  "VipsForeignLoadPngBuffer",
  "VipsForeignLoadWebpBuffer",
  "VipsForeignLoadNsgifBuffer"
]

/** Process-wide libvips settings; idempotent, applied when the layer is built. */
const configureSharp = () => {
  // Every loader (SVG, TIFF, HEIF/AVIF, PDF, ...) is blocked, then the four are unblocked, so bytes
  // that slipped past the signature check still cannot reach another format's parser.
  sharp.block({ operation: ["VipsForeignLoad"] })
  sharp.unblock({ operation: allowedLoaders })
  // The operation cache speeds up repeated work on the same input; every upload is new, so it
  // would only hold memory (50 MB by default) and open files.
  sharp.cache(false)
  // One libvips thread per image: parallelism comes from `parallelImages`, which keeps CPU at two
  // cores and memory at two images. It is sharp's own default with glibc's allocator, but that
  // default depends on the allocator detected, so it is stated here.
  sharp.concurrency(1)
}

const inputOptions = {
  // Sharp's recommendation for untrusted input. Measured with sharp 0.35.5: `none` silently fills a
  // truncated JPEG, PNG or GIF with grey; `truncated`, `error` and `warning` all refuse them, and
  // `warning` still accepts the usual benign oddities (bytes after the end, unparsable EXIF, a
  // bogus ICC profile, a GIF without trailer), so the strictest level costs nothing here. It also
  // stops at once a small JPEG that claims many megapixels and whose data ends short (`error` fills
  // them in). A JPEG's stray bytes between segments, the one common warning, are taken out first.
  failOn: "warning",
  // Backs up the header check below, should libvips see more pixels than the header promised.
  limitInputPixels: maxPixels,
  // Animated GIF and WebP: the first frame only.
  pages: 1
} satisfies SharpOptions

/** What a file of another format has of a JPEG's scans. */
const noScans: JpegScans = { components: [], strays: [] }

/** How sharp reports the pipeline's `timeout` (libvips' "timeout: N% complete"). */
const isTimeout = (error: unknown) => messageOf(error).startsWith("timeout")

/**
 * Runs one libvips step. Its failures are §7.1 "truncated or corrupt": the signature already said
 * the bytes are a supported format. The library's message is logged for operators; the client's
 * cause is fixed text, so it never carries library internals or file content. A step cut short by
 * `decodeTimeoutSeconds` says so: a 500 may be retried (§7.3), and on a less busy machine the
 * retry may finish.
 */
const decoding = <A>(format: ImageFormat, step: () => Promise<A>) =>
  Effect.tryPromise(step).pipe(
    Effect.catchAll((error) =>
      Effect.logWarning("Image could not be decoded").pipe(
        Effect.annotateLogs({ format, reason: messageOf(error.error) }),
        Effect.zipRight(Effect.fail(
          new ImageProcessingFailed({
            cause: isTimeout(error.error)
              ? `decoding took longer than ${decodeTimeoutSeconds} seconds`
              : `the ${imageFormatName[format]} file is truncated or corrupt`
          })
        ))
      )
    )
  )

/**
 * The scale of the decode that checks a file sent to the model as it came: every byte is still
 * decoded (a JPEG's and a WebP's decoders scale as they go, and cannot skip data), into pixels the
 * describer does not send, so a corrupt or truncated file fails as it would at full size. Measured
 * on an 800x600 file, sharp 0.35.5: WebP 6.9 ms against 20.3 for the full decode and the model's
 * JPEG, JPEG 3.9 against 8.3, PNG 7.6 against 9.7 (PNG cannot shrink while decoding).
 */
const checkOnlyScale = 16

const decode = (bytes: Uint8Array, format: ImageFormat, pixelLimit: number, takesAsUploaded: ReadonlyArray<AsUploadedFormat>) =>
  Effect.gen(function* () {
    // Header only, no pixels. The pixel limit is lifted here so an oversized image reads as such
    // and can be answered with `ImageTooManyPixels`.
    const header = yield* decoding(format, () => sharp(bytes, { ...inputOptions, limitInputPixels: false }).metadata())
    // Signature and decoder must agree (with other loaders blocked, a mismatch means a malformed file).
    if (header.format !== format) return yield* new InvalidImageFile()
    // With `pages: 1`, `height` is one frame's height.
    if (header.width * header.height > pixelLimit) {
      return yield* new ImageTooManyPixels({ maxMegapixels: Math.floor(pixelLimit / 1_000_000) })
    }

    // libvips reads an animated PNG as its default image alone: its frames are counted apart.
    const frames = format === "png" ? pngHeader(bytes)?.frames ?? 1 : header.pages ?? 1
    const asUploaded = sentAsUploaded({
      format,
      bytes,
      width: header.width,
      height: header.height,
      frames,
      orientation: header.orientation ?? 1,
      eightBitRgb: header.depth === "uchar" && (header.space === "srgb" || header.space === "b-w"),
      hasAlpha: header.hasAlpha
    }, takesAsUploaded)
    const longestSide = asUploaded
      ? Math.ceil(Math.max(header.width, header.height) / checkOnlyScale)
      : limits.longestSide

    const scaled = sharp(bytes, inputOptions)
      .timeout({ seconds: decodeTimeoutSeconds })
      .autoOrient()
      // Directly after loading, so JPEG and WebP are shrunk while decoding. A triangle (linear)
      // kernel rather than sharp's lanczos3 for what the decoder leaves to reduce (libvips box-shrinks
      // by whole factors first; sharp halves the JPEG shrink-on-load when the factor is 4 to 5, so a
      // 12-MP photo is decoded at 2000x1500 and reduced 2x): linear reads a third of lanczos3's input
      // pixels, for output the model cannot tell apart (-5% of the instructions of a 12-MP JPEG,
      // -11% for a 10 MB PNG; docs/BENCHMARKS.md, "Image pipeline").
      .resize({ width: longestSide, height: longestSide, fit: "inside", withoutEnlargement: true, kernel: "linear" })
      // CMYK, 16-bit, greyscale and palette all end as 8-bit sRGB, with alpha when the source has it.
      .toColourspace("srgb")
    const { data, info } = yield* decoding(format, () =>
      (header.hasAlpha ? scaled.ensureAlpha() : scaled.removeAlpha()).raw().toBuffer({ resolveWithObject: true }))

    return {
      source: {
        format,
        bytes: bytes.length,
        width: header.autoOrient.width,
        height: header.autoOrient.height,
        frames,
        hasAlpha: header.hasAlpha
      },
      width: info.width,
      height: info.height,
      channels: header.hasAlpha ? 4 : 3,
      pixels: data,
      // A copy (a Buffer's `slice` would be a view): the upload's bytes are a view of the request
      // body, released once the form's checks end.
      ...(asUploaded ? { asUploaded: new Uint8Array(bytes) } : {})
    } satisfies PreparedImage
  })

const make = Effect.gen(function* () {
  yield* Effect.sync(configureSharp)
  const permits = yield* makeFairPermits(decodeSlots, parallelImages)

  const prepare = (
    bytes: Uint8Array,
    owner: string,
    takesAsUploaded: ReadonlyArray<AsUploadedFormat> = []
  ): Effect.Effect<PreparedImage, ImageError, Scope.Scope> =>
    Effect.gen(function* () {
      // Cheap checks first: size, then signature (§7.1 `Invalid image file`), before libvips.
      if (bytes.length > limits.imageBytes) return yield* new ImageTooLarge()
      const format = detectImageFormat(bytes)
      if (Option.isNone(format)) return yield* new InvalidImageFile()
      yield* Effect.annotateCurrentSpan("image.format", format.value)
      // Only JPEG has scans; more than one means progressive, or one scan per component.
      const { components: scans, strays } = format.value === "jpeg" ? jpegScans(bytes, maxJpegScans) : noScans
      if (scans.length > maxJpegScans) return yield* new ImageTooManyScans({ maxScans: maxJpegScans })
      if (format.value === "webp" && webpFrames(bytes, maxWebpFrames) > maxWebpFrames) {
        return yield* new ImageTooManyFrames({ maxFrames: maxWebpFrames })
      }
      const pixelLimit = pixelLimitOf(bytes, format.value, scans)
      // libvips work cannot be cancelled: it runs to its end while holding the permit, so the
      // permits count exactly the images in memory even when the request is interrupted.
      return yield* permits.withPermit(owner)(scopedPixels(decode(withoutStrays(bytes, strays), format.value, pixelLimit, takesAsUploaded)))
    }).pipe(Effect.withSpan("Images.prepare", { attributes: { "image.bytes": bytes.length } }))

  return { prepare } satisfies ImagesShape
})

/** An image whose pixels (and file to send as uploaded) are released as the scope closes; made uninterruptibly. */
const scopedPixels = <E>(acquire: Effect.Effect<PreparedImage, E>) =>
  acquireRelease(acquire, (image) =>
    Effect.zipRight(releaseNow(image.pixels), image.asUploaded === undefined ? Effect.void : releaseNow(image.asUploaded)))

export class Images extends Context.Tag("Images")<Images, ImagesShape>() {
  /** sharp/libvips; sets the process-wide libvips settings when built. */
  static readonly layer: Layer.Layer<Images> = Layer.effect(Images, make)

  /**
   * Test layer: each call runs `answer` with the uploaded bytes. Each answer gets pixels of its
   * own, released with the scope, as from the real layer.
   */
  static scripted = (
    answer: (bytes: Uint8Array) => Effect.Effect<PreparedImage, ImageError>
  ): Layer.Layer<Images> =>
    Layer.succeed(Images, {
      prepare: (bytes) =>
        scopedPixels(Effect.map(answer(bytes), (image) => ({
          ...image,
          pixels: new Uint8Array(image.pixels),
          ...(image.asUploaded === undefined ? {} : { asUploaded: new Uint8Array(image.asUploaded) })
        })))
    })

  /** Test layer answering every upload with `image`. */
  static fixed = (image: PreparedImage): Layer.Layer<Images> => Images.scripted(() => Effect.succeed(image))
}
