import { describe, expect, it } from "@effect/vitest"
import sharp, { type Sharp } from "sharp"
import { sentAsUploaded, type UploadedImageFacts } from "../../src/domain/asUploaded.ts"
import { jpegHoldsOnlyImage } from "../../src/domain/jpegMarkers.ts"
import { pngHoldsOnlyImage } from "../../src/domain/pngHeader.ts"
import { webpHoldsOnlyImage } from "../../src/domain/webpChunks.ts"
import { animatedWebp } from "../support/hostileImages.ts"

/** A smooth 200 x 150 picture: compresses as a photo does. */
const picture = () => {
  const width = 200
  const height = 150
  const pixels = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) pixels.set([x, y, (x + y) % 256], (y * width + x) * 3)
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
}

/** A flat 200 x 150 graphic, four bands of colour: compresses as a chart or a logo does. */
const graphic = () =>
  sharp({ create: { width: 200, height: 150, channels: 3, background: "#ffffff" } }).composite(
    ["#cc2222", "#22cc22", "#2222cc"].map((colour, band) => ({
      input: { create: { width: 50, height: 150, channels: 3, background: colour } },
      left: 50 * band,
      top: 0
    }))
  )

const bytesOf = async (image: Sharp) => new Uint8Array(await image.toBuffer())
const gps = { IFD0: { Copyright: "someone" }, IFD3: { GPSLatitudeRef: "N", GPSLatitude: "51/1 30/1 0/1" } }

const jpeg = await bytesOf(picture().jpeg({ quality: 80 }))
const progressiveJpeg = await bytesOf(picture().jpeg({ quality: 80, progressive: true }))
const jpegWithExif = await bytesOf(picture().jpeg({ quality: 80 }).withExif(gps))
const jpegWithProfile = await bytesOf(picture().jpeg({ quality: 80 }).withIccProfile("p3"))
const png = await bytesOf(graphic().png())
const photoPng = await bytesOf(picture().png())
const webp = await bytesOf(picture().webp({ quality: 80 }))
const webpWithExif = await bytesOf(picture().webp({ quality: 80 }).withExif(gps))

/** `bytes` with one segment or chunk inserted at `at`. */
const inserted = (bytes: Uint8Array, at: number, extra: ReadonlyArray<number>) =>
  new Uint8Array([...bytes.subarray(0, at), ...extra, ...bytes.subarray(at)])

const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0))

/** A PNG chunk of `type` holding `data`; its CRC is not checked by the walk. */
const pngChunk = (type: string, data: ReadonlyArray<number>) => [0, 0, 0, data.length, ...ascii(type), ...data, 0, 0, 0, 0]

/** Just after IHDR (8-byte signature, then 8 + 13 + 4 bytes). */
const afterIhdr = 33

describe("a file that holds only its image", () => {
  it("a JPEG of baseline or progressive frames and tables holds only its image", () => {
    expect(jpegHoldsOnlyImage(jpeg)).toBe(true)
    expect(jpegHoldsOnlyImage(progressiveJpeg)).toBe(true)
  })

  it("a JPEG with EXIF, an ICC profile or a comment holds more", () => {
    expect(jpegHoldsOnlyImage(jpegWithExif)).toBe(false)
    expect(jpegHoldsOnlyImage(jpegWithProfile)).toBe(false)
    expect(jpegHoldsOnlyImage(inserted(jpeg, 2, [0xff, 0xfe, 0, 7, ...ascii("hello")]))).toBe(false)
  })

  it("bytes after the end of the image (EOI, IEND, the RIFF container) are more than the image", () => {
    const after = (bytes: Uint8Array) => new Uint8Array([...bytes, ...ascii("PK\u0003\u0004 anything")])
    expect(jpegHoldsOnlyImage(after(jpeg))).toBe(false)
    expect(pngHoldsOnlyImage(after(png))).toBe(false)
    expect(webpHoldsOnlyImage(after(webp))).toBe(false)
    // A RIFF size that leaves the last chunk outside the container.
    const short = webp.slice()
    new DataView(short.buffer).setUint32(4, webp.length - 8 - 2, true)
    expect(webpHoldsOnlyImage(short)).toBe(false)
  })

  it("a JPEG's APP0 must be a JFIF header without a thumbnail, its APP14 an Adobe header, each of its exact size", () => {
    const withHeader = (code: number, data: ReadonlyArray<number>) =>
      inserted(jpeg, 2, [0xff, code, (data.length + 2) >> 8, (data.length + 2) & 255, ...data])
    const jfif = [...ascii("JFIF\0"), 1, 1, 0, 0, 1, 0, 1]
    expect(jpegHoldsOnlyImage(withHeader(0xe0, [...jfif, 0, 0]))).toBe(true)
    expect(jpegHoldsOnlyImage(withHeader(0xee, [...ascii("Adobe"), 0, 100, 0, 0, 0, 0, 1]))).toBe(true)
    expect(jpegHoldsOnlyImage(withHeader(0xe0, [...jfif, 1, 1, 9, 9, 9]))).toBe(false) // a 1x1 thumbnail
    expect(jpegHoldsOnlyImage(withHeader(0xe0, [...ascii("JFXX\0"), 0x10, ...jpeg]))).toBe(false)
    expect(jpegHoldsOnlyImage(withHeader(0xe0, ascii("GPS 48.858370N 2.294481E")))).toBe(false)
    expect(jpegHoldsOnlyImage(withHeader(0xee, ascii("GPS 48.858370N 2.294481E")))).toBe(false)
  })

  it("a JPEG whose frame is arithmetic-coded, or that has no scan, is not sent as it came", () => {
    const arithmetic = jpeg.slice()
    const sof = arithmetic.findIndex((byte, at) => byte === 0xff && arithmetic[at + 1] === 0xc0)
    arithmetic[sof + 1] = 0xc9
    expect(jpegHoldsOnlyImage(arithmetic)).toBe(false)
    const scan = jpeg.findIndex((byte, at) => byte === 0xff && jpeg[at + 1] === 0xda)
    expect(jpegHoldsOnlyImage(jpeg.subarray(0, scan))).toBe(false)
  })

  it("a PNG of header, data and end holds only its image; text, EXIF, a profile or a cut end do not", () => {
    expect(pngHoldsOnlyImage(png)).toBe(true)
    expect(pngHoldsOnlyImage(inserted(png, afterIhdr, pngChunk("pHYs", [0, 0, 11, 19, 0, 0, 11, 19, 1])))).toBe(true)
    expect(pngHoldsOnlyImage(inserted(png, afterIhdr, pngChunk("tEXt", ascii("Author\0someone"))))).toBe(false)
    expect(pngHoldsOnlyImage(inserted(png, afterIhdr, pngChunk("eXIf", [0x4d, 0x4d, 0, 42])))).toBe(false)
    expect(pngHoldsOnlyImage(inserted(png, afterIhdr, pngChunk("iCCP", ascii("p\0\0"))))).toBe(false)
    expect(pngHoldsOnlyImage(png.subarray(0, png.length - 12))).toBe(false)
  })

  it("a PNG's chunks must be of their exact lengths, a palette only in a palette image, nothing between or after the image data", () => {
    const iend = png.length - 12
    expect(pngHoldsOnlyImage(inserted(png, afterIhdr, pngChunk("pHYs", ascii("GPS 48.858370N"))))).toBe(false)
    expect(pngHoldsOnlyImage(inserted(png, afterIhdr, pngChunk("PLTE", ascii("GPS 48.858370N 2.2"))))).toBe(false)
    expect(pngHoldsOnlyImage(inserted(png, afterIhdr, pngChunk("tRNS", [0, 0, 0, 0, 0, 0])))).toBe(false)
    expect(pngHoldsOnlyImage(inserted(png, iend, pngChunk("gAMA", [0, 0, 177, 143])))).toBe(false)
    expect(pngHoldsOnlyImage(new Uint8Array([...png, ...pngChunk("tEXt", ascii("Comment\0GPS"))]))).toBe(false)
  })

  it("a file of a thousand segments or chunks or more is not walked to its end: it takes the full path", () => {
    const iend = png.length - 12
    const emptyData = pngChunk("IDAT", [])
    const manyChunks = (count: number) => inserted(png, iend, Array.from({ length: count }, () => emptyData).flat())
    expect(pngHoldsOnlyImage(manyChunks(100))).toBe(true)
    expect(pngHoldsOnlyImage(manyChunks(1000))).toBe(false)
    const restartInterval = [0xff, 0xdd, 0, 4, 0, 0]
    const manySegments = (count: number) => inserted(jpeg, 2, Array.from({ length: count }, () => restartInterval).flat())
    expect(jpegHoldsOnlyImage(manySegments(100))).toBe(true)
    expect(jpegHoldsOnlyImage(manySegments(1000))).toBe(false)
  })

  it("a still WebP holds only its image; one with EXIF, or animated, does not", async () => {
    expect(webpHoldsOnlyImage(webp)).toBe(true)
    expect(webpHoldsOnlyImage(webpWithExif)).toBe(false)
    expect(webpHoldsOnlyImage(await animatedWebp(2))).toBe(false)
    expect(webpHoldsOnlyImage(webp.subarray(0, 12))).toBe(false)
  })

  it("a WebP is one bitstream, alone or after an extended header that flags nothing, filling its container", () => {
    const riff = (...chunks: ReadonlyArray<ReadonlyArray<number>>) => {
      const body = [...ascii("WEBP"), ...chunks.flat()]
      return new Uint8Array([...ascii("RIFF"), body.length & 255, (body.length >> 8) & 255, (body.length >> 16) & 255, body.length >>> 24, ...body])
    }
    const chunk = (type: string, data: ReadonlyArray<number>) =>
      [...ascii(type), data.length & 255, (data.length >> 8) & 255, (data.length >> 16) & 255, 0, ...data, ...(data.length % 2 === 1 ? [0] : [])]
    const bitstream = [...webp.subarray(12)]
    const header = (flags: number) => chunk("VP8X", [flags, 0, 0, 0, 199, 0, 0, 149, 0, 0])
    expect(webpHoldsOnlyImage(riff(bitstream))).toBe(true)
    expect(webpHoldsOnlyImage(riff(header(0), bitstream))).toBe(true)
    expect(webpHoldsOnlyImage(riff(header(0x10), chunk("ALPH", [0, 1, 2]), bitstream))).toBe(false)
    expect(webpHoldsOnlyImage(riff(bitstream, chunk("ALPH", ascii("GPS 48.858370N"))))).toBe(false)
    expect(webpHoldsOnlyImage(riff(bitstream, bitstream))).toBe(false)
  })
})

describe("sent to the model as uploaded", () => {
  const clean: UploadedImageFacts = {
    format: "jpeg",
    bytes: jpeg,
    width: 200,
    height: 150,
    frames: 1,
    orientation: 1,
    eightBitRgb: true,
    hasAlpha: false
  }

  it("a small, upright, opaque, 8-bit file holding only its image, of a format the endpoint takes", () => {
    expect(sentAsUploaded(clean, ["jpeg", "png"])).toBe(true)
    expect(sentAsUploaded({ ...clean, format: "webp", bytes: webp }, ["webp"])).toBe(true)
    expect(sentAsUploaded({ ...clean, format: "png", bytes: png }, ["png"])).toBe(true)
  })

  it("any one reason is enough to make the model's JPEG instead", () => {
    const refused: ReadonlyArray<[string, UploadedImageFacts, ReadonlyArray<"jpeg" | "png" | "webp">]> = [
      ["a format the endpoint does not take", { ...clean, format: "webp", bytes: webp }, ["jpeg", "png"]],
      ["no format taken", clean, []],
      ["an animation", { ...clean, frames: 2 }, ["jpeg"]],
      ["turned by EXIF", { ...clean, orientation: 6 }, ["jpeg"]],
      ["over the model's longest side", { ...clean, width: 1001 }, ["jpeg"]],
      ["CMYK or 16 bits", { ...clean, eightBitRgb: false }, ["jpeg"]],
      ["transparency", { ...clean, hasAlpha: true }, ["jpeg"]],
      ["over 4 bits a pixel", { ...clean, width: 40, height: 30 }, ["jpeg"]],
      ["metadata", { ...clean, bytes: jpegWithExif }, ["jpeg"]],
      ["a photo's PNG, several times its JPEG", { ...clean, format: "png", bytes: photoPng }, ["png"]]
    ]
    for (const [reason, facts, formats] of refused) expect(sentAsUploaded(facts, formats), reason).toBe(false)
  })
})
