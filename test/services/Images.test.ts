import { describe, expect, it, layer } from "@effect/vitest"
import { Duration, Effect, Fiber, Ref } from "effect"
import sharp, { type Sharp } from "sharp"
import type { PreparedImage } from "../../src/domain/describe.ts"
import { ImageProcessingFailed, ImageTooLarge, ImageTooManyPixels, ImageTooManyScans, InvalidImageFile } from "../../src/domain/errors.ts"
import { jpegScanCount } from "../../src/domain/jpegMarkers.ts"
import { limits } from "../../src/domain/limits.ts"
import { maxJpegScans, maxMegapixels, maxWebpFrames } from "../../src/domain/pixelLimits.ts"
import { Images } from "../../src/services/Images.ts"
import { solid as preparedSolid } from "../domain/preparedImages.ts"
import {
  animatedPng,
  animation,
  blackBitmapPng,
  blue,
  flatPng,
  green,
  heicHeader,
  magenta,
  noise,
  padTo,
  pdfHeader,
  plainText,
  red,
  redBlueHalves,
  solid,
  svg,
  svgWithProlog,
  truncate
} from "../fixtures/images.ts"
import { preparedCopy } from "../support/describer.ts"
import { animatedWebp, cjpegMissing, gifClaiming, jpegClaiming, oneScanBufferedJpegs, scanBombJpeg } from "../support/hostileImages.ts"

type Rgba = readonly [number, number, number, number]

const encode = (image: Sharp) => Effect.promise(() => image.toBuffer())
const headerOf = (bytes: Uint8Array) => Effect.promise(() => sharp(bytes).metadata())

const prepare = (bytes: Uint8Array) => preparedCopy(bytes)

/** An RGB image's pixels read as opaque. */
const pixelAt = (image: PreparedImage, x: number, y: number): Rgba => {
  const offset = (y * image.width + x) * image.channels
  const [r = -1, g = -1, b = -1, a = 255] = image.pixels.subarray(offset, offset + image.channels)
  return [r, g, b, a]
}

/** Lossy encoders move colours a little; `tolerance` is the largest difference per channel. */
const expectColour = (actual: Rgba, expected: Rgba, tolerance = 0) =>
  actual.forEach((channel, index) => expect(Math.abs(channel - expected[index]!), `channel ${index} of ${actual}`).toBeLessThanOrEqual(tolerance))

/**
 * Every prepared image: RGBA when the source has alpha, RGB otherwise, one pixel of that many bytes
 * per position, longest side within §8's limit.
 */
const expectWellFormed = (image: PreparedImage) => {
  expect(image.channels).toBe(image.source.hasAlpha ? 4 : 3)
  expect(image.pixels.length).toBe(image.width * image.height * image.channels)
  expect(Math.max(image.width, image.height)).toBeLessThanOrEqual(limits.longestSide)
}

/** The error, or the size of what was decoded (rather than a million pixels in a failure's diff). */
const outcome = (bytes: Uint8Array) =>
  prepare(bytes).pipe(Effect.match({ onFailure: (error) => error, onSuccess: (image) => ({ decoded: [image.width, image.height] }) }))

const corrupt = (name: string) => new ImageProcessingFailed({ cause: `the ${name} file is truncated or corrupt` })

layer(Images.layer)("Images.layer", (it) => {
  describe("accepted formats", () => {
    it.effect("baseline JPEG", () =>
      Effect.gen(function* () {
        const bytes = yield* encode(solid(64, 48, red).jpeg())
        const image = yield* prepare(bytes)
        expect(image.source).toStrictEqual({ format: "jpeg", bytes: bytes.length, width: 64, height: 48, frames: 1, hasAlpha: false })
        expect([image.width, image.height]).toStrictEqual([64, 48])
        expectWellFormed(image)
        expectColour(pixelAt(image, 32, 24), [255, 0, 0, 255], 3)
      }))

    it.effect("progressive JPEG", () =>
      Effect.gen(function* () {
        const bytes = yield* encode(noise(300, 200).jpeg({ progressive: true }))
        expect((yield* headerOf(bytes)).isProgressive).toBe(true)
        const image = yield* prepare(bytes)
        expect(image.source.format).toBe("jpeg")
        expect([image.width, image.height]).toStrictEqual([300, 200])
        expectWellFormed(image)
      }))

    it.effect("CMYK JPEG becomes sRGB", () =>
      Effect.gen(function* () {
        const bytes = yield* encode(solid(50, 40, red).toColourspace("cmyk").jpeg())
        expect((yield* headerOf(bytes)).space).toBe("cmyk")
        const image = yield* prepare(bytes)
        expectWellFormed(image)
        const [r, g, b, a] = pixelAt(image, 25, 20)
        expect(r).toBeGreaterThan(200)
        expect(Math.max(g, b)).toBeLessThan(40)
        expect(a).toBe(255)
      }))

    it.effect("EXIF orientation 6 is applied: width and height swap, the left half ends on top", () =>
      Effect.gen(function* () {
        const bytes = yield* encode(redBlueHalves(40, 20).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }))
        expect((yield* headerOf(bytes)).orientation).toBe(6)
        const image = yield* prepare(bytes)
        expect([image.source.width, image.source.height]).toStrictEqual([20, 40])
        expect([image.width, image.height]).toStrictEqual([20, 40])
        expectColour(pixelAt(image, 10, 5), [255, 0, 0, 255], 8)
        expectColour(pixelAt(image, 10, 34), [0, 0, 255, 255], 8)
      }))

    it.effect("EXIF orientation is applied before scaling", () =>
      Effect.gen(function* () {
        const bytes = yield* encode(redBlueHalves(3000, 1500).jpeg().withMetadata({ orientation: 6 }))
        const image = yield* prepare(bytes)
        expect([image.source.width, image.source.height]).toStrictEqual([1500, 3000])
        expect([image.width, image.height]).toStrictEqual([500, 1000])
        expectColour(pixelAt(image, 250, 100), [255, 0, 0, 255], 8)
        expectColour(pixelAt(image, 250, 900), [0, 0, 255, 255], 8)
      }))

    it.effect("16-bit PNG becomes 8-bit", () =>
      Effect.gen(function* () {
        const bytes = yield* encode(solid(50, 40, { r: 0, g: 128, b: 255 }).removeAlpha().toColourspace("rgb16").png())
        expect((yield* headerOf(bytes)).depth).toBe("ushort")
        const image = yield* prepare(bytes)
        expect(image.source).toMatchObject({ format: "png", hasAlpha: false })
        expectWellFormed(image)
        expectColour(pixelAt(image, 0, 0), [0, 128, 255, 255])
      }))

    it.effect("palette PNG with transparency keeps its alpha", () =>
      Effect.gen(function* () {
        const bytes = yield* encode(solid(50, 40, red, 0.5).png({ palette: true }))
        expect((yield* headerOf(bytes)).isPalette).toBe(true)
        const image = yield* prepare(bytes)
        expect(image.source).toMatchObject({ format: "png", hasAlpha: true })
        expectWellFormed(image)
        expectColour(pixelAt(image, 10, 10), [255, 0, 0, 128], 2)
      }))

    it.effect("greyscale PNG becomes RGBA", () =>
      Effect.gen(function* () {
        const bytes = yield* encode(solid(30, 20, { r: 100, g: 100, b: 100 }).removeAlpha().toColourspace("b-w").png())
        expect((yield* headerOf(bytes)).channels).toBe(1)
        const image = yield* prepare(bytes)
        expectWellFormed(image)
        expectColour(pixelAt(image, 0, 0), [100, 100, 100, 255])
      }))

    it.effect("animated GIF: the first frame, all frames counted", () =>
      Effect.gen(function* () {
        const bytes = yield* encode(animation([green, magenta, blue]).gif())
        const image = yield* prepare(bytes)
        expect(image.source).toMatchObject({ format: "gif", frames: 3, width: 30, height: 20 })
        expect([image.width, image.height]).toStrictEqual([30, 20])
        expectWellFormed(image)
        expectColour(pixelAt(image, 15, 10), [0, 255, 0, 255])
      }))

    it.effect("animated WebP: the first frame, all frames counted", () =>
      Effect.gen(function* () {
        const bytes = yield* encode(animation([green, magenta, blue]).webp())
        const image = yield* prepare(bytes)
        expect(image.source).toMatchObject({ format: "webp", frames: 3, width: 30, height: 20 })
        expectWellFormed(image)
        expectColour(pixelAt(image, 15, 10), [0, 255, 0, 255], 8)
      }))

    it.effect("animated PNG: the default image, all frames counted (libvips sees one)", () =>
      Effect.gen(function* () {
        const bytes = animatedPng(yield* encode(solid(30, 20, { r: 0, g: 255, b: 0 }).png()), 3)
        const image = yield* prepare(bytes)
        expect(image.source).toMatchObject({ format: "png", frames: 3, width: 30, height: 20 })
        expectColour(pixelAt(image, 15, 10), [0, 255, 0, 255])
      }))

    it.effect("lossless WebP keeps exact colours", () =>
      Effect.gen(function* () {
        const bytes = yield* encode(solid(50, 40, { r: 1, g: 2, b: 3 }).webp({ lossless: true }))
        const image = yield* prepare(bytes)
        expect(image.source).toMatchObject({ format: "webp", frames: 1, width: 50, height: 40 })
        expectColour(pixelAt(image, 49, 39), [1, 2, 3, 255])
      }))
  })

  describe("memory", () => {
    it.effect("the pixels are the scope's: whole within it, released as it closes", () =>
      Effect.gen(function* () {
        const bytes = yield* encode(solid(64, 48, red).png())
        const pixels = yield* Effect.scoped(Effect.flatMap(Images, (images) => images.prepare(bytes, "an account")).pipe(
          Effect.map((image) => {
            expect(image.pixels.byteLength).toBe(image.width * image.height * image.channels)
            expect(image.pixels.byteLength).toBeGreaterThan(0)
            return image.pixels
          })
        ))
        expect(pixels.byteLength).toBe(0)
      }))
  })

  describe("scaling (§8: longest side at most 1,000 px, never enlarged)", () => {
    it.effect("a wide JPEG is scaled to 1000 wide", () =>
      Effect.gen(function* () {
        const image = yield* prepare(yield* encode(solid(3000, 1500, red).jpeg()))
        expect([image.source.width, image.source.height]).toStrictEqual([3000, 1500])
        expect([image.width, image.height]).toStrictEqual([1000, 500])
        expectWellFormed(image)
      }))

    it.effect("a tall PNG is scaled to 1000 high, the other side rounded", () =>
      Effect.gen(function* () {
        const image = yield* prepare(yield* encode(solid(1001, 2003, green).png()))
        expect([image.width, image.height]).toStrictEqual([500, 1000])
        expectColour(pixelAt(image, 499, 999), [0, 255, 0, 255])
      }))

    it.effect("a small image is never enlarged", () =>
      Effect.gen(function* () {
        const image = yield* prepare(yield* encode(solid(30, 20, blue).png()))
        expect([image.width, image.height]).toStrictEqual([30, 20])
      }))
  })

  describe("a file the model takes as it came (MODEL_IMAGE_AS_UPLOADED)", () => {
    /** A smooth 800 x 600 picture: compresses as a photo does. */
    const picture = () => {
      const pixels = Buffer.alloc(800 * 600 * 3)
      for (let at = 0; at < 800 * 600; at++) pixels.set([at % 800 >> 2, (at / 800) >> 2, 90], at * 3)
      return sharp(pixels, { raw: { width: 800, height: 600, channels: 3 } })
    }

    it.effect("is kept byte for byte, checked by a decode at 1/16 scale; the source is its full size", () =>
      Effect.gen(function* () {
        for (const [format, image] of [["webp", picture().webp()], ["jpeg", picture().jpeg()]] as const) {
          const bytes = yield* encode(image)
          const prepared = yield* preparedCopy(bytes, "an account", [format])
          expect(prepared.asUploaded).toStrictEqual(new Uint8Array(bytes))
          expect([prepared.width, prepared.height]).toStrictEqual([50, 38])
          expect(prepared.source).toStrictEqual({ format, bytes: bytes.length, width: 800, height: 600, frames: 1, hasAlpha: false })
          expectWellFormed(prepared)
        }
      }))

    it.effect("a format the describer does not take, or a file with EXIF, is prepared as pixels at the model's size", () =>
      Effect.gen(function* () {
        const webp = yield* encode(picture().webp())
        const withExif = yield* encode(picture().jpeg().withExif({ IFD0: { Copyright: "someone" } }))
        for (const [bytes, formats] of [[webp, ["jpeg", "png"]], [withExif, ["jpeg"]]] as const) {
          const prepared = yield* preparedCopy(bytes, "an account", formats)
          expect(prepared.asUploaded).toBeUndefined()
          expect([prepared.width, prepared.height]).toStrictEqual([800, 600])
        }
      }))

    it.effect.each([["JPEG", "jpeg"], ["WebP", "webp"]] as const)("a truncated %s is refused as at full size", ([name, format]) =>
      Effect.gen(function* () {
        const bytes = yield* encode(format === "jpeg" ? picture().jpeg() : picture().webp())
        for (const fraction of [0.5, 0.95]) {
          expect(yield* Effect.flip(preparedCopy(truncate(bytes, fraction), "an account", [format]))).toStrictEqual(corrupt(name))
        }
      }))
  })

  describe("size (§8: at most 10 MB)", () => {
    it.effect("exactly 10 MB is accepted", () =>
      Effect.gen(function* () {
        const bytes = padTo(yield* encode(solid(30, 20, blue).png()), limits.imageBytes)
        const image = yield* prepare(bytes)
        expect(image.source.bytes).toBe(limits.imageBytes)
      }))

    it.effect("one byte more is ImageTooLarge, whatever the content", () =>
      Effect.gen(function* () {
        const png = padTo(yield* encode(solid(30, 20, blue).png()), limits.imageBytes + 1)
        expect(yield* Effect.flip(prepare(png))).toStrictEqual(new ImageTooLarge())
        expect(yield* Effect.flip(prepare(new Uint8Array(limits.imageBytes + 1)))).toStrictEqual(new ImageTooLarge())
      }))
  })

  describe("refused formats (§7.1 `Invalid image file`: only the bytes count, never a name)", () => {
    const generated = {
      TIFF: () => solid(20, 20, red).tiff(),
      AVIF: () => solid(20, 20, red).avif()
    }

    it.effect.each(Object.entries(generated))("%s", ([_, image]) =>
      Effect.gen(function* () {
        expect(yield* Effect.flip(prepare(yield* encode(image())))).toStrictEqual(new InvalidImageFile())
      }))

    it.effect.each([
      ["SVG (also when uploaded as picture.png)", svg],
      ["SVG with an XML prolog", svgWithProlog],
      ["HEIC header", heicHeader],
      ["PDF header", pdfHeader],
      ["plain text", plainText],
      ["no bytes at all", new Uint8Array(0)]
    ] as const)("%s", ([_, bytes]) =>
      Effect.gen(function* () {
        expect(yield* Effect.flip(prepare(bytes))).toStrictEqual(new InvalidImageFile())
      }))

    it.effect("a JPEG whose signature is damaged", () =>
      Effect.gen(function* () {
        const bytes = new Uint8Array(yield* encode(solid(20, 20, red).jpeg()))
        bytes[2] = 0x00
        expect(yield* Effect.flip(prepare(bytes))).toStrictEqual(new InvalidImageFile())
      }))

    it.effect("the layer blocks every other libvips loader, so sharp itself cannot read them", () =>
      Effect.gen(function* () {
        for (const bytes of [svg, yield* encode(generated.TIFF()), yield* encode(generated.AVIF())]) {
          const error = yield* Effect.flip(Effect.tryPromise(() => sharp(bytes).metadata()))
          expect(String(error.error)).toContain("unsupported image format")
        }
        expect(sharp.cache().memory.max).toBe(0)
        expect(sharp.concurrency()).toBe(1)
      }))
  })

  describe("damaged files (§7.1 `Image processing failed: <cause>`)", () => {
    const sources = {
      JPEG: () => noise(256, 256).jpeg(),
      PNG: () => noise(256, 256).png(),
      WebP: () => noise(256, 256).webp(),
      GIF: () => noise(256, 256).gif()
    }

    it.effect.each(Object.entries(sources))("truncated %s", ([name, image]) =>
      Effect.gen(function* () {
        const bytes = yield* encode(image())
        for (const fraction of [0.3, 0.9, 0.99]) {
          expect(yield* Effect.flip(prepare(truncate(bytes, fraction)))).toStrictEqual(corrupt(name))
        }
      }))

    it.effect.each(Object.entries(sources))("%s cut just after its signature", ([name, image]) =>
      Effect.gen(function* () {
        const bytes = yield* encode(image())
        expect(yield* Effect.flip(prepare(bytes.subarray(0, 16)))).toStrictEqual(corrupt(name))
      }))

    it.effect("a cut inside the signature leaves no recognisable format", () =>
      Effect.gen(function* () {
        const jpeg = yield* encode(sources.JPEG())
        const png = yield* encode(sources.PNG())
        expect(yield* Effect.flip(prepare(jpeg.subarray(0, 2)))).toStrictEqual(new InvalidImageFile())
        expect(yield* Effect.flip(prepare(png.subarray(0, 7)))).toStrictEqual(new InvalidImageFile())
      }))

    it.effect("a JPEG with stray bytes before its frame header and its scan (libjpeg's 'extraneous bytes before marker') is decoded as browsers show it", () =>
      Effect.gen(function* () {
        const bytes = yield* encode(sources.JPEG())
        const at = (code: number) => bytes.findIndex((byte, i) => byte === 0xff && bytes[i + 1] === code)
        const strayed = new Uint8Array([
          ...bytes.subarray(0, at(0xc0)), 0, 0, 0, 0, ...bytes.subarray(at(0xc0), at(0xda)), 0x12, 0x34, ...bytes.subarray(at(0xda))
        ])
        const clean = yield* prepare(bytes)
        const decoded = yield* prepare(strayed)
        expect([decoded.width, decoded.height]).toStrictEqual([256, 256])
        expect(decoded.pixels).toStrictEqual(clean.pixels)
      }))

    it.effect.each([["PNG"], ["GIF"]] as const)("%s with damaged pixel data", ([name]) =>
      Effect.gen(function* () {
        const bytes = new Uint8Array(yield* encode(sources[name]()))
        for (let index = Math.floor(bytes.length * 0.4); index < bytes.length * 0.6; index += 97) bytes[index] = bytes[index]! ^ 0x5a
        expect(yield* Effect.flip(prepare(bytes))).toStrictEqual(corrupt(name))
      }))
  })

  describe(`decompression bombs (over ${maxMegapixels} megapixels)`, () => {
    it.effect("a 30,000 x 30,000 PNG of 110 KB is refused from its header", () =>
      Effect.gen(function* () {
        const bytes = blackBitmapPng(30_000, 30_000)
        expect(bytes.length).toBeLessThan(200_000)
        expect(yield* Effect.flip(prepare(bytes))).toStrictEqual(new ImageTooManyPixels({ maxMegapixels: 100 }))
      }))

    it.effect("exactly 100 megapixels is decoded, one more row is refused", () =>
      Effect.gen(function* () {
        const image = yield* prepare(blackBitmapPng(10_000, 10_000))
        expect([image.width, image.height]).toStrictEqual([1000, 1000])
        expectColour(pixelAt(image, 500, 500), [0, 0, 0, 255])
        expect(yield* Effect.flip(prepare(blackBitmapPng(10_000, 10_001)))).toStrictEqual(
          new ImageTooManyPixels({ maxMegapixels: 100 })
        )
      }))
  })

  describe("JPEGs libjpeg decodes through all their coefficients (progressive, or scans of fewer components): 200 MB at most", () => {
    it.effect.each([
      ["grey", "greyscale", 100, [10_000, 10_001]],
      ["4:2:0 colour", "4:2:0", 66, [8_000, 8_400]],
      ["4:4:4 colour", "4:4:4", 33, [5_700, 5_900]]
    ] as const)("progressive %s: at most the megapixels of 200 MB", ([, layout, megapixels, [side, longSide]]) =>
      Effect.gen(function* () {
        const progressive = yield* encode(
          (layout === "greyscale" ? noise(64, 48).toColourspace("b-w") : noise(64, 48)).jpeg({ progressive: true, ...(layout === "greyscale" ? {} : { chromaSubsampling: layout }) })
        )
        expect(yield* Effect.flip(prepare(jpegClaiming(progressive, side, longSide)))).toStrictEqual(
          new ImageTooManyPixels({ maxMegapixels: megapixels })
        )
      }))

    // Generated with cjpeg: a progressive frame of one DC scan, a sequential one whose only scan holds one of three components.
    it.effect.skipIf(cjpegMissing)(`one scan is enough when libjpeg still buffers it: 4:4:4 past 33 megapixels is refused${cjpegMissing ? ": skipped, cjpeg is not installed" : ""}`, () =>
      Effect.gen(function* () {
        for (const { bytes, name } of oneScanBufferedJpegs(64)) {
          expect(jpegScanCount(bytes), name).toBe(1)
          expect(yield* outcome(jpegClaiming(bytes, 5_700, 5_900)), name).toStrictEqual(new ImageTooManyPixels({ maxMegapixels: 33 }))
          expect(yield* outcome(jpegClaiming(bytes, 5_700, 5_700)), `${name}, 32.5 megapixels: decoded, found short`).toStrictEqual(corrupt("JPEG"))
        }
      }))

    it.effect("a one-scan JPEG keeps the common limit: past it, a baseline claiming 8,000 x 8,400 is decoded (and found short)", () =>
      Effect.gen(function* () {
        const baseline = yield* encode(noise(64, 48).jpeg({ chromaSubsampling: "4:2:0" }))
        expect(yield* Effect.flip(prepare(jpegClaiming(baseline, 8_000, 8_400)))).toStrictEqual(corrupt("JPEG"))
      }))
  })

  describe("interlaced PNGs are decoded whole: 200 MB of pixels at most", () => {
    it.effect.each([
      ["8-bit grey", 8, 0, 100, [10_000, 10_001]],
      ["8-bit RGB", 8, 2, 66, [8_000, 8_400]],
      ["8-bit RGBA", 8, 6, 50, [7_100, 7_100]],
      ["16-bit RGBA", 16, 6, 25, [10_000, 10_000]]
    ] as const)("%s: at most the megapixels of 200 MB, refused from the header at once", ([, bitDepth, colourType, megapixels, [width, height]]) =>
      Effect.gen(function* () {
        const bytes = flatPng({ width, height, bitDepth, colourType, interlaced: true })
        const [elapsed, error] = yield* Effect.timed(outcome(bytes))
        expect(error).toStrictEqual(new ImageTooManyPixels({ maxMegapixels: megapixels }))
        // Decoding the 16-bit one took 5.6 s and 900 MB; a header read takes milliseconds.
        expect(Duration.toMillis(elapsed)).toBeLessThan(2_000)
      }))

    it.effect("a 16-bit RGBA interlaced PNG of exactly 25 megapixels (200 MB) is decoded, a row more is not", () =>
      Effect.gen(function* () {
        const image = yield* prepare(flatPng({ width: 5_000, height: 5_000, bitDepth: 16, colourType: 6, interlaced: true }))
        expect([image.width, image.height, image.channels]).toStrictEqual([1000, 1000, 4])
        expectColour(pixelAt(image, 500, 500), [0, 0, 0, 0])
        expect(yield* outcome(flatPng({ width: 5_000, height: 5_001, bitDepth: 16, colourType: 6, interlaced: true }))).toStrictEqual(
          new ImageTooManyPixels({ maxMegapixels: 25 })
        )
      }))

    it.effect("a non-interlaced PNG streams its rows and keeps the common limit", () =>
      Effect.gen(function* () {
        const image = yield* prepare(flatPng({ width: 7_100, height: 7_100, bitDepth: 8, colourType: 6, interlaced: false }))
        expect([image.width, image.height]).toStrictEqual([1000, 1000])
      }))
  })

  it.effect("a GIF is drawn onto an RGBA canvas of its whole screen: over 50 megapixels (200 MB) is refused", () =>
    Effect.gen(function* () {
      // A flat 7,000 x 7,000 GIF took 250 MB to decode; this one claims that size and more.
      const gif = yield* encode(noise(64, 48).gif())
      expect(yield* outcome(gifClaiming(gif, 7_100, 7_100))).toStrictEqual(new ImageTooManyPixels({ maxMegapixels: 50 }))
      expect(yield* outcome(gifClaiming(gif, 7_000, 7_000)), "49 megapixels are decoded").toStrictEqual({ decoded: [1000, 1000] })
    }))

  it.effect(`an animated WebP of over ${maxWebpFrames} frames is refused from its chunks; ${maxWebpFrames} are decoded`, () =>
    Effect.gen(function* () {
      // A plain object, so that the test also runs (and fails) against code without the error.
      expect(yield* outcome(yield* Effect.promise(() => animatedWebp(maxWebpFrames + 1)))).toMatchObject({ _tag: "ImageTooManyFrames", maxFrames: 2000 })
      expect(yield* outcome(yield* Effect.promise(() => animatedWebp(maxWebpFrames)))).toStrictEqual({ decoded: [16, 16] })
    }))

  it.effect("an animated WebP is drawn onto an RGBA canvas of its whole size: over 50 megapixels is refused", () =>
    Effect.gen(function* () {
      expect(yield* outcome(yield* Effect.promise(() => animatedWebp(2, 7_100)))).toStrictEqual(new ImageTooManyPixels({ maxMegapixels: 50 }))
      expect(yield* outcome(yield* Effect.promise(() => animatedWebp(2, 7_000))), "49 megapixels are decoded").toStrictEqual({ decoded: [1000, 1000] })
    }))

  // Generated with libjpeg-turbo's cjpeg; skipped, with this name, where it is not installed.
  describe(`scan bombs (over ${maxJpegScans} JPEG scans)${cjpegMissing ? ": skipped, cjpeg (libjpeg-turbo-progs) is not installed" : ""}`, () => {
    // A plain object, so that the tests also run (and fail) against code without the error.
    const tooManyScans = { _tag: "ImageTooManyScans", maxScans: 32 }

    it.effect.skipIf(cjpegMissing)("700 scans of a flat picture, end marker cut off, are refused from the markers", () =>
      Effect.gen(function* () {
        const bytes = scanBombJpeg({ side: 2000, colour: false, scans: 700, endMarker: false })
        expect(jpegScanCount(bytes)).toBe(700)
        expect(yield* outcome(bytes)).toMatchObject(tooManyScans)
      }))

    it.effect.skipIf(cjpegMissing)("2,080 scans in colour, end marker kept (a valid image), are refused", () =>
      Effect.gen(function* () {
        const bytes = scanBombJpeg({ side: 1000, colour: true, scans: 2080, endMarker: true })
        expect(jpegScanCount(bytes)).toBe(2080)
        expect(yield* outcome(bytes)).toMatchObject(tooManyScans)
      }))

    it.effect.skipIf(cjpegMissing)("exactly 32 scans are decoded, 33 are refused", () =>
      Effect.gen(function* () {
        const image = yield* prepare(scanBombJpeg({ side: 600, colour: false, scans: 32, endMarker: true }))
        expect([image.width, image.height]).toStrictEqual([600, 600])
        expectColour(pixelAt(image, 300, 300), [128, 128, 128, 255], 2)
        expect(yield* Effect.flip(prepare(scanBombJpeg({ side: 600, colour: false, scans: 33, endMarker: true })))).toStrictEqual(
          new ImageTooManyScans({ maxScans: 32 })
        )
      }))

    it.effect.skipIf(cjpegMissing)("stray bytes before the first scan, which libjpeg passes over, hide no scan from the count", () =>
      Effect.gen(function* () {
        const bomb = scanBombJpeg({ side: 2000, colour: false, scans: 100, endMarker: true })
        const first = bomb.findIndex((byte, at) => byte === 0xff && bomb[at + 1] === 0xda)
        const strayed = new Uint8Array([...bomb.subarray(0, first), 0x00, 0x00, ...bomb.subarray(first)])
        expect(jpegScanCount(strayed)).toBe(100)
        expect(yield* outcome(strayed)).toMatchObject(tooManyScans)
      }))
  })

  // sharp decodes on the runtime's worker pool: with two threads (Bun's default on 2 cores) the
  // third decode slot would wait for a worker. `npm start` and `npm test` set 4 (README).
  const workers = Number(process.env["UV_THREADPOOL_SIZE"] ?? 0)
  it.effect.skipIf(cjpegMissing || workers < 4)(
    `one account's slow decodes leave a slot to another account's image${workers < 4 ? ": skipped, UV_THREADPOOL_SIZE is under 4" : ""}`,
    () =>
    Effect.gen(function* () {
      // Slow but allowed: 32 scans of 100 megapixels, each scan a pass over every block (seconds).
      const slow = scanBombJpeg({ side: 10_000, colour: false, scans: 32, endMarker: true })
      const small = yield* encode(solid(64, 48, red).png())
      const finished = yield* Ref.make<ReadonlyArray<string>>([])
      const run = (name: string, owner: string, bytes: Uint8Array) =>
        preparedCopy(bytes, owner).pipe(
          Effect.zipRight(Ref.update(finished, (names) => [...names, name]))
        )
      const slowOnes = yield* Effect.fork(Effect.all([run("a1", "a", slow), run("a2", "a", slow)], { concurrency: "unbounded" }))
      // Real time (not the test clock) for a's decodes to take their slots.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
      yield* run("b", "b", small)
      yield* Fiber.join(slowOnes)
      // b did not wait for a slot: it was done before either of a's decodes.
      expect((yield* Ref.get(finished))[0]).toBe("b")
    }), 60_000)

  it.effect("parallel uploads all complete", () =>
    Effect.gen(function* () {
      const bytes = yield* encode(noise(1200, 900).jpeg())
      const images = yield* Effect.all(Array.from({ length: 6 }, () => prepare(bytes)), { concurrency: "unbounded" })
      expect(images.map((image) => [image.width, image.height])).toStrictEqual(Array(6).fill([1000, 750]))
    }))
})

describe("Images test layers", () => {
  const image = preparedSolid(2, 2, [1, 2, 3, 255])

  it.effect("fixed answers the given image, with pixels of its own each time (the route releases them)", () =>
    Effect.scoped(Effect.flatMap(Images, (images) => images.prepare(new Uint8Array([1]), "an account")).pipe(
      Effect.map((answer) => {
        expect(answer).toStrictEqual(image)
        expect(answer.pixels.buffer).not.toBe(image.pixels.buffer)
      })
    )).pipe(Effect.provide(Images.fixed(image))))

  it.effect("scripted answers with the script, failures included", () =>
    prepare(new Uint8Array(0)).pipe(
      Effect.flip,
      Effect.map((error) => expect(error).toStrictEqual(new InvalidImageFile())),
      Effect.provide(Images.scripted(() => Effect.fail(new InvalidImageFile())))
    ))
})
