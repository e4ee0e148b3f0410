/**
 * What a PNG's header (IHDR, and tRNS before the image data) tells of its decoded size, read
 * without decoding (PNG specification, 11.2.2 and 11.3.2.1).
 */

/** The PNG signature: 8 bytes before the first chunk. */
const signatureLength = 8

export interface PngHeader {
  readonly width: number
  readonly height: number
  /** Adam7: the seven passes each cover the whole image, so it is decoded whole before any row comes out. */
  readonly interlaced: boolean
  /** Channels once decoded: palette entries become RGB, and a tRNS chunk adds alpha. */
  readonly channels: number
  /** 2 at a depth of 16 bits, else 1 (depths under 8 are widened to one byte). */
  readonly bytesPerSample: number
  /** An animated PNG's frames, from its acTL chunk (APNG specification); 1 for any other. */
  readonly frames: number
}

/** Channels of each colour type: grey 0, RGB 2, palette 3 (decoded as RGB), grey+alpha 4, RGBA 6. */
const channelsOf: Partial<Record<number, number>> = { 0: 1, 2: 3, 3: 3, 4: 2, 6: 4 }

/** A chunk's type, its four bytes read as one number: the walks make no string. */
const typeCode = (type: string) => [...type].reduce((code, char) => code * 256 + char.charCodeAt(0), 0)
const chunkType = (view: DataView, at: number) => view.getUint32(at + 4)
const ihdr = typeCode("IHDR")
const idat = typeCode("IDAT")
const iend = typeCode("IEND")
const trns = typeCode("tRNS")
const actl = typeCode("acTL")

/** The header of a PNG whose first chunk is a whole IHDR; undefined otherwise (the decoder refuses it). */
export const pngHeader = (bytes: Uint8Array): PngHeader | undefined => {
  if (bytes.length < signatureLength + 8 + 13) return undefined
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (chunkType(view, signatureLength) !== ihdr) return undefined
  const header = signatureLength + 8
  const colourType = bytes[header + 9] ?? 0
  const colours = channelsOf[colourType]
  if (colours === undefined) return undefined
  // tRNS, which gives grey, RGB and palette images an alpha channel, must come before IDAT (5.6).
  // So must acTL, which makes it animated; the decoder shows its default image only.
  let transparency = false
  let frames = 1
  for (let at = signatureLength; at + 8 <= bytes.length;) {
    const type = chunkType(view, at)
    if (type === idat || type === iend) break
    if (type === trns) transparency = true
    if (type === actl && at + 12 <= bytes.length) frames = Math.max(1, view.getUint32(at + 8))
    at += 12 + view.getUint32(at)
  }
  return {
    width: view.getUint32(header),
    height: view.getUint32(header + 4),
    interlaced: bytes[header + 12] === 1,
    // Colour types 4 and 6 have alpha already.
    channels: colours + (transparency && (colourType & 4) === 0 ? 1 : 0),
    bytesPerSample: bytes[header + 8] === 16 ? 2 : 1,
    frames
  }
}

/**
 * Chunks a PNG that holds only its image may have (docs/model-endpoints.md, "The image the model
 * sees"), each of its exact length: the header, a palette (of a palette image only), the image
 * data and the end, and the rendering hints sRGB, gamma and physical size. Not text (tEXt, zTXt,
 * iTXt), EXIF, a time, an ICC profile, transparency (only opaque images are sent), or APNG's
 * animation chunks.
 */
const imageOnlyChunks = new Map<number, (length: number, colourType: number) => boolean>([
  [ihdr, (length) => length === 13],
  [typeCode("PLTE"), (length, colourType) => colourType === 3 && length % 3 === 0 && length <= 3 * 256],
  [idat, () => true],
  [iend, (length) => length === 0],
  [typeCode("sRGB"), (length) => length === 1],
  [typeCode("gAMA"), (length) => length === 4],
  [typeCode("pHYs"), (length) => length === 9]
])

/**
 * Chunks walked at most: an encoder writes image data in chunks of 8 KiB and more, so a file sent
 * as uploaded (500 KB at most) has some tens; 40,000 empty ones took 30 ms of the request thread.
 */
const maxChunks = 1000

/**
 * Whether a PNG's chunks are all its image's (`imageOnlyChunks`), its image data in one run, and
 * the file ends with IEND: decoders ignore bytes after it, which can hold anything.
 */
export const pngHoldsOnlyImage = (bytes: Uint8Array): boolean => {
  if (bytes.length < signatureLength + 8 + 13) return false
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const colourType = bytes[signatureLength + 8 + 9] ?? 0
  let dataSeen = false
  for (let at = signatureLength, chunks = 0; at + 8 <= bytes.length && chunks < maxChunks; chunks++) {
    const type = chunkType(view, at)
    const length = view.getUint32(at)
    if (imageOnlyChunks.get(type)?.(length, colourType) !== true) return false
    // Once the image data has begun, only more of it, then the end: a chunk there is read by no decoder.
    if (dataSeen && type !== idat && type !== iend) return false
    if (type === iend) return dataSeen && at + 12 === bytes.length
    dataSeen ||= type === idat
    at += 12 + length
  }
  return false
}
