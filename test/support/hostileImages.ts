/**
 * Hostile files, generated rather than stored: real images of the four formats of §8 and what an
 * attacker makes of them (cut short, bit-flipped, lying about their size), files of other formats
 * under an image name, and valid images built to be expensive (one small frame repeated 10,000
 * times, or a flat picture in thousands of scans). Everything is deterministic for a given seed.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as zlib from "node:zlib"
import sharp from "sharp"
import type { ImageFormat } from "../../src/domain/describe.ts"
import { endOfImage, jpegMarkers, startOfScan } from "../../src/domain/jpegMarkers.ts"
import { concatBytes } from "./multipartBody.ts"
import { seededRandom } from "./seeded.ts"

/** A noisy picture (noise compresses badly, so every byte of the file matters to the decoder). */
export const noiseImage = async (format: ImageFormat, seed: number, width = 160, height = 120): Promise<Uint8Array> => {
  const random = seededRandom(seed)
  const pixels = new Uint8Array(width * height * 3)
  for (let i = 0; i < pixels.length; i++) pixels[i] = Math.floor(random() * 256)
  const image = sharp(pixels, { raw: { width, height, channels: 3 } })
  const encoded = format === "jpeg" ? image.jpeg() : format === "png" ? image.png() : format === "webp" ? image.webp() : image.gif()
  return new Uint8Array(await encoded.toBuffer())
}

/** The first `fraction` of the file. */
export const truncated = (bytes: Uint8Array, fraction: number): Uint8Array =>
  bytes.slice(0, Math.floor(bytes.length * fraction))

/** A copy with `flips` random bits inverted past the first `keep` bytes (the signature stays). */
export const bitFlipped = (bytes: Uint8Array, seed: number, flips: number, keep = 16): Uint8Array => {
  const random = seededRandom(seed)
  const copy = bytes.slice()
  for (let i = 0; i < flips; i++) {
    const at = keep + Math.floor(random() * (copy.length - keep))
    copy[at] = (copy[at] ?? 0) ^ (1 << Math.floor(random() * 8))
  }
  return copy
}

const uint32 = (value: number) => {
  const bytes = new Uint8Array(4)
  new DataView(bytes.buffer).setUint32(0, value)
  return bytes
}

const pngChunk = (type: string, data: Uint8Array) => {
  const typed = concatBytes([type, data])
  return concatBytes([uint32(data.length), typed, uint32(zlib.crc32(typed))])
}

/**
 * A real decompression bomb: a valid 1-bit greyscale PNG of `side` x `side` black pixels. At
 * 30,000 it is about 100 KB on the wire and 900 megapixels, 3.6 GB once decoded to RGBA.
 */
export const pngBomb = (side: number): Uint8Array => {
  const ihdr = new Uint8Array(13)
  const view = new DataView(ihdr.buffer)
  view.setUint32(0, side)
  view.setUint32(4, side)
  ihdr.set([1, 0, 0, 0, 0], 8) // bit depth 1, greyscale, deflate, adaptive filter, no interlace
  // Each row: a filter byte and side / 8 bytes of zeros.
  const raw = new Uint8Array(side * (1 + Math.ceil(side / 8)))
  return concatBytes([
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", zlib.deflateSync(raw, { level: 9 })),
    pngChunk("IEND", new Uint8Array(0))
  ])
}

/** A JPEG whose frame header (SOF) claims `width` x `height`; the scan data stays the small image's. */
export const jpegClaiming = (jpeg: Uint8Array, width: number, height: number): Uint8Array => {
  const copy = jpeg.slice()
  const view = new DataView(copy.buffer)
  for (let at = 2; at + 4 < copy.length;) {
    const marker = copy[at + 1] ?? 0
    const length = view.getUint16(at + 2)
    if (marker >= 0xc0 && marker <= 0xc3) {
      view.setUint16(at + 5, height)
      view.setUint16(at + 7, width)
      return copy
    }
    at += 2 + length
  }
  throw new Error("no SOF segment")
}

/** A GIF whose logical screen and first frame claim `width` x `height` (at most 65,535 each). */
export const gifClaiming = (gif: Uint8Array, width: number, height: number): Uint8Array => {
  const copy = gif.slice()
  const view = new DataView(copy.buffer)
  view.setUint16(6, width, true)
  view.setUint16(8, height, true)
  // The first image descriptor follows the header, the global colour table and any extensions.
  const flags = copy[10] ?? 0
  let at = 13 + ((flags & 0x80) !== 0 ? 3 * 2 ** ((flags & 7) + 1) : 0)
  while (copy[at] === 0x21) {
    at += 2
    while ((copy[at] ?? 0) !== 0) at += (copy[at] ?? 0) + 1
    at += 1
  }
  if (copy[at] !== 0x2c) throw new Error("no image descriptor")
  view.setUint16(at + 5, width, true)
  view.setUint16(at + 7, height, true)
  return copy
}

/** A lossy WebP whose frame header (and canvas, if extended) claims `width` x `height` (at most 16,383 each). */
export const webpClaiming = (webp: Uint8Array, width: number, height: number): Uint8Array => {
  const copy = webp.slice()
  const view = new DataView(copy.buffer)
  const fourCc = (at: number) => String.fromCharCode(...copy.subarray(at, at + 4))
  let patched = false
  for (let at = 12; at + 8 <= copy.length;) {
    const size = view.getUint32(at + 4, true)
    if (fourCc(at) === "VP8X") {
      view.setUint16(at + 12, (width - 1) & 0xffff, true)
      copy[at + 14] = ((width - 1) >> 16) & 0xff
      view.setUint16(at + 15, (height - 1) & 0xffff, true)
      copy[at + 17] = ((height - 1) >> 16) & 0xff
    } else if (fourCc(at) === "VP8 ") {
      // Frame tag (3 bytes), start code (3 bytes), then 14-bit width and height.
      view.setUint16(at + 8 + 6, width & 0x3fff, true)
      view.setUint16(at + 8 + 8, height & 0x3fff, true)
      patched = true
    }
    at += 8 + size + (size % 2)
  }
  if (!patched) throw new Error("no lossy VP8 frame")
  return copy
}

/**
 * A valid animated GIF: a `width` x `height` screen and `frames` frames of one pixel each, about
 * 15 bytes a frame. Decoding every frame onto the screen would cost `frames` full screens.
 */
export const manyFramesGif = (frames: number, width: number, height: number): Uint8Array => {
  const header = new Uint8Array(13 + 6)
  header.set(new TextEncoder().encode("GIF89a"))
  const view = new DataView(header.buffer)
  view.setUint16(6, width, true)
  view.setUint16(8, height, true)
  header[10] = 0x80 // a global colour table of 2 entries
  header.set([0, 0, 0, 255, 255, 255], 13)
  // Application extension: loop forever, as animated GIFs do.
  const loop = new Uint8Array([0x21, 0xff, 0x0b, ...new TextEncoder().encode("NETSCAPE2.0"), 0x03, 0x01, 0x00, 0x00, 0x00])
  // One frame: image descriptor (1x1 at the origin) then LZW data: min code size 2, one sub-block
  // with clear (4), pixel 0, end (5) as 3-bit codes, then the block terminator.
  const frame = new Uint8Array([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00])
  const body = new Uint8Array(frame.length * frames)
  for (let i = 0; i < frames; i++) body.set(frame, i * frame.length)
  return concatBytes([header, loop, body, new Uint8Array([0x3b])])
}

/** An SVG whose internal entities expand a billion times ("billion laughs"). */
export const svgWithEntities = (): string => {
  const entities = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`)
  return [
    '<?xml version="1.0"?>',
    `<!DOCTYPE svg [<!ENTITY lol0 "lol">${entities.join("")}]>`,
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><text x="0" y="20">&lol9;</text></svg>'
  ].join("\n")
}

export const tiffImage = async (): Promise<Uint8Array> =>
  new Uint8Array(await sharp({ create: { width: 32, height: 32, channels: 3, background: "#336699" } }).tiff().toBuffer())

/** A minimal one-page PDF. */
export const pdfDocument = (): string =>
  [
    "%PDF-1.4",
    "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj",
    "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj",
    "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >> endobj",
    "trailer << /Root 1 0 R >>",
    "%%EOF"
  ].join("\n")

const html = "<html><body><script>alert(document.cookie)</script></body></html>"

/** A valid JPEG that a browser sniffing for HTML would also run: the page sits in a comment segment. */
export const jpegWithHtml = (jpeg: Uint8Array): Uint8Array => {
  const text = new TextEncoder().encode(html)
  const comment = new Uint8Array(4 + text.length)
  comment.set([0xff, 0xfe, (text.length + 2) >> 8, (text.length + 2) & 0xff])
  comment.set(text, 4)
  return concatBytes([jpeg.subarray(0, 2), comment, jpeg.subarray(2)])
}

/** An HTML page with a JPEG appended: not an image by its first bytes. */
export const htmlWithJpeg = (jpeg: Uint8Array): Uint8Array => concatBytes([`${html}\n`, jpeg])

/** libjpeg-turbo's `cjpeg` (Debian's libjpeg-turbo-progs, which `.ci/run` installs), for the scan bombs. */
export const cjpegMissing = spawnSync("cjpeg", ["-version"]).error !== undefined

/** A flat grey PGM (or RGB PPM) written a row at a time, so the test never holds the picture. */
const writeFlatNetpbm = (file: string, side: number, colour: boolean) => {
  const channels = colour ? 3 : 1
  const fd = fs.openSync(file, "w")
  try {
    fs.writeSync(fd, `${colour ? "P6" : "P5"}\n${side} ${side}\n255\n`)
    const row = new Uint8Array(side * channels).fill(128)
    for (let y = 0; y < side; y++) fs.writeSync(fd, row)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * A progressive JPEG scan bomb: a flat `side` x `side` picture (grey, or colour with three
 * components) encoded by `cjpeg -scans` as a DC scan and full AC scans, whose AC scans are then
 * repeated until the file holds `scans` scans. A repeated first-pass AC scan is valid (§G.1.1.1.2
 * only orders refinements), costs a few dozen bytes, and makes the decoder walk every block of the
 * image once more. Without `endMarker`, EOI is cut off. Needs `cjpeg` (see `cjpegMissing`).
 */
export const scanBombJpeg = (options: { readonly side: number; readonly colour: boolean; readonly scans: number; readonly endMarker: boolean }): Uint8Array => {
  const { colour, endMarker, scans, side } = options
  const jpeg = flatJpeg(side, colour, colour ? "0 1 2: 0 0 0 0;\n0: 1 63 0 0;\n1: 1 63 0 0;\n2: 1 63 0 0;\n" : "0: 0 0 0 0;\n0: 1 63 0 0;\n")
  // The AC scans (with the Huffman tables before them) run from the marker after the DC scan to EOI.
    const markers = Array.from(jpegMarkers(jpeg))
    const dcScan = markers.findIndex((marker) => marker.code === startOfScan)
    const from = markers[dcScan + 1]?.offset ?? 0
    const to = markers.find((marker) => marker.code === endOfImage)?.offset ?? jpeg.length
  const acScans = colour ? 3 : 1
  const rounds = Math.ceil((scans - 1) / acScans)
  return concatBytes([
    jpeg.subarray(0, from),
    ...Array.from({ length: rounds }, () => jpeg.subarray(from, to)),
    endMarker ? new Uint8Array([0xff, endOfImage]) : new Uint8Array(0)
  ])
}

/**
 * A flat `side` x `side` picture encoded by `cjpeg -scans` with the scan `script` (libjpeg's
 * wizard.txt): grey, or colour at 4:2:0, or at 4:4:4. Needs `cjpeg` (see `cjpegMissing`).
 */
const flatJpeg = (side: number, colour: boolean | "4:4:4", script: string): Uint8Array => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "flat-jpeg-"))
  try {
    const source = path.join(dir, colour === false ? "flat.pgm" : "flat.ppm")
    writeFlatNetpbm(source, side, colour !== false)
    const scans = path.join(dir, "scans.txt")
    fs.writeFileSync(scans, script)
    const output = path.join(dir, "flat.jpg")
    const run = spawnSync("cjpeg", [...(colour === "4:4:4" ? ["-sample", "1x1"] : []), "-scans", scans, "-outfile", output, source])
    if (run.status !== 0) throw new Error(`cjpeg failed: ${run.stderr.toString()}`)
    return new Uint8Array(fs.readFileSync(output))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * JPEGs of one scan that libjpeg still decodes into a buffer of all their coefficients (flat,
 * colour at 4:4:4, `side` x `side`): a progressive frame (SOF2) with its DC scan only, or a
 * sequential frame (SOF0) of three components whose only scan holds the first, then EOI. One scan
 * costs one pass, but the buffer is 2 bytes a sample: 600 MB at 10,000 x 10,000. Needs `cjpeg`.
 */
export const oneScanBufferedJpegs = (side: number): ReadonlyArray<{ readonly name: string; readonly bytes: Uint8Array }> => {
  const sequential = flatJpeg(side, "4:4:4", "0: 0 63 0 0;\n1: 0 63 0 0;\n2: 0 63 0 0;\n")
  // cjpeg wants every component in some scan: the others are cut off after the first.
  const secondScan = Array.from(jpegMarkers(sequential)).filter((marker) => marker.code === startOfScan)[1]?.offset ?? sequential.length
  return [
    { name: "progressive, DC scan only", bytes: flatJpeg(side, "4:4:4", "0 1 2: 0 0 0 0;\n") },
    { name: "sequential, one scan of the first of three components", bytes: concatBytes([sequential.subarray(0, secondScan), new Uint8Array([0xff, endOfImage])]) }
  ]
}

/**
 * A progressive JPEG in more than `scans` scans without `cjpeg`: the scans after the first of
 * `progressive` (sharp's progression) repeated. Repeated refinement scans make it undecodable, but
 * the scan limit refuses it from its markers, before any decoding.
 */
export const repeatedScansJpeg = (progressive: Uint8Array, scans: number): Uint8Array => {
  const markers = Array.from(jpegMarkers(progressive))
  const from = markers[markers.findIndex((marker) => marker.code === startOfScan) + 1]?.offset ?? 0
  const to = markers.find((marker) => marker.code === endOfImage)?.offset ?? progressive.length
  const perRound = markers.filter((marker) => marker.code === startOfScan && marker.offset >= from).length
  return concatBytes([
    progressive.subarray(0, from),
    ...Array.from({ length: Math.ceil(scans / perRound) }, () => progressive.subarray(from, to)),
    new Uint8Array([0xff, endOfImage])
  ])
}

const riffChunk = (type: string, data: Uint8Array) => {
  const size = new Uint8Array(4)
  new DataView(size.buffer).setUint32(0, data.length, true)
  return concatBytes([type, size, data, data.length % 2 === 0 ? new Uint8Array(0) : new Uint8Array(1)])
}

const uint24 = (value: number) => new Uint8Array([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff])

/** The image chunk (`VP8L`, with its header) of a lossless 16 x 16 WebP. */
const tinyFrame = (async () => {
  const file = new Uint8Array(await sharp({ create: { width: 16, height: 16, channels: 4, background: "#3366997f" } }).webp({ lossless: true }).toBuffer())
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength)
  for (let at = 12; at + 8 <= file.length;) {
    const size = view.getUint32(at + 4, true)
    if (String.fromCharCode(...file.subarray(at, at + 4)) === "VP8L") return file.subarray(at, at + 8 + size + (size % 2))
    at += 8 + size + (size % 2)
  }
  throw new Error("sharp wrote no VP8L chunk")
})()

/**
 * A valid animated WebP of `frames` frames of 16 x 16 pixels on a canvas of `canvas` x `canvas`:
 * small on the wire, expensive for libwebp's demuxer past a few thousand frames, and a canvas
 * drawn whole in RGBA.
 */
export const animatedWebp = async (frames: number, canvas = 16): Promise<Uint8Array> => {
  const frame = riffChunk("ANMF", concatBytes([uint24(0), uint24(0), uint24(15), uint24(15), uint24(100), new Uint8Array(1), await tinyFrame]))
  const body = concatBytes([
    "WEBP",
    riffChunk("VP8X", concatBytes([new Uint8Array([0x12, 0, 0, 0]), uint24(canvas - 1), uint24(canvas - 1)])),
    riffChunk("ANIM", new Uint8Array(6)),
    ...Array.from({ length: frames }, () => frame)
  ])
  const size = new Uint8Array(4)
  new DataView(size.buffer).setUint32(0, body.length, true)
  return concatBytes(["RIFF", size, body])
}
