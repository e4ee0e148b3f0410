/**
 * The marker structure of a JPEG (ITU T.81, annex B), read without decoding: what it costs to
 * decode a JPEG grows with its scans (each one of a progressive JPEG is a pass over every block of
 * the image), and whether it is decoded through a buffer of all its coefficients follows from its
 * frame type and its scans' components, all of which the markers tell.
 */

/** A marker: its code (the byte after 0xFF) and the offset of its 0xFF. */
export interface JpegMarker {
  readonly code: number
  readonly offset: number
  /** Where bytes that are no marker began, when some came before this one where a marker must be. */
  readonly strayFrom?: number
}

/** Start of scan: entropy-coded data follows its header. */
export const startOfScan = 0xda
/** End of image. */
export const endOfImage = 0xd9

/** Markers without a length field: SOI, EOI, RST0-7 and TEM (B.1.1.3). */
const standsAlone = (code: number) => code === 0xd8 || code === endOfImage || (code >= 0xd0 && code <= 0xd7) || code === 0x01

/** The offset just past entropy-coded data starting at `from`: its 0xFF00 are stuffed bytes and its RST markers belong to it (B.1.1.5). */
const endOfEntropyData = (bytes: Uint8Array, from: number): number => {
  // `indexOf` skips the data between 0xFF bytes natively: a 10 MB scan is walked in milliseconds.
  let at = bytes.indexOf(0xff, from)
  while (at !== -1 && at + 1 < bytes.length) {
    const next = bytes[at + 1] ?? 0
    if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) at = bytes.indexOf(0xff, at + 2)
    else if (next === 0xff) at++ // a fill byte before a marker (B.1.1.2)
    else return at
  }
  return bytes.length
}

/**
 * The markers after SOI, in order, until EOI or until the bytes end (a truncated file yields what
 * it has). Segments are skipped by their length, so a segment's content is never read as markers.
 * Where a marker must be, other bytes (and 0xFF00) are passed over to the next 0xFF, as libjpeg's
 * `next_marker` does with a warning: stopping there instead let two stray bytes before the first
 * scan hide every scan after them from the limits, while libjpeg decoded them all.
 */
export function* jpegMarkers(bytes: Uint8Array): Generator<JpegMarker> {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return
  let at = 2
  let strayFrom: number | undefined
  while (at + 1 < bytes.length) {
    if (bytes[at] !== 0xff) {
      strayFrom ??= at
      at = bytes.indexOf(0xff, at)
      if (at === -1) return
      continue
    }
    const code = bytes[at + 1] ?? 0
    if (code === 0xff) {
      at++ // fill bytes (B.1.1.2)
      continue
    }
    if (code === 0x00) {
      strayFrom ??= at
      at += 2 // a stuffed zero where a marker must be: discarded, as libjpeg does
      continue
    }
    yield strayFrom === undefined ? { code, offset: at } : { code, offset: at, strayFrom }
    strayFrom = undefined
    if (code === endOfImage) return
    if (standsAlone(code)) {
      at += 2
      continue
    }
    if (at + 3 >= bytes.length) return
    const length = ((bytes[at + 2] ?? 0) << 8) | (bytes[at + 3] ?? 0)
    if (length < 2) return
    at += 2 + length
    if (code === startOfScan) at = endOfEntropyData(bytes, at)
  }
}

/** What one walk over the markers finds: the scans, and the stray bytes between segments. */
export interface JpegScans {
  /** The component count (Ns, B.2.3) of each scan, in order; 0 for a scan whose header is cut short. */
  readonly components: ReadonlyArray<number>
  /** Ranges `[from, to)` of bytes where a marker must be that are none. */
  readonly strays: ReadonlyArray<readonly [number, number]>
}

/**
 * The scans of a JPEG, listing no further than `atMost + 1` of them: enough to tell that a file
 * has too many without walking the rest of it; and the stray bytes found on the way.
 */
export const jpegScans = (bytes: Uint8Array, atMost = Infinity): JpegScans => {
  const components: Array<number> = []
  const strays: Array<readonly [number, number]> = []
  for (const { code, offset, strayFrom } of jpegMarkers(bytes)) {
    if (strayFrom !== undefined) strays.push([strayFrom, offset])
    if (code === startOfScan && components.push(bytes[offset + 4] ?? 0) > atMost) break
  }
  return { components, strays }
}

/** The component count of each scan (`jpegScans`). */
export const jpegScanComponents = (bytes: Uint8Array, atMost = Infinity): ReadonlyArray<number> =>
  jpegScans(bytes, atMost).components

/**
 * The bytes without the stray ones between segments ("Corrupt JPEG data: N extraneous bytes before
 * marker", which cameras and editors leave and browsers show): libjpeg passes over them with a
 * warning, which the decoder's strictness (services/Images.ts) would take for corruption. The
 * same bytes when there are none.
 */
export const withoutStrays = (bytes: Uint8Array, strays: JpegScans["strays"]): Uint8Array => {
  if (strays.length === 0) return bytes
  const kept = new Uint8Array(bytes.length - strays.reduce((sum, [from, to]) => sum + to - from, 0))
  let written = 0
  let read = 0
  for (const [from, to] of strays) {
    kept.set(bytes.subarray(read, from), written)
    written += from - read
    read = to
  }
  kept.set(bytes.subarray(read), written)
  return kept
}

/** The number of scans (SOS segments), counting no further than `atMost + 1` (`jpegScanComponents`). */
export const jpegScanCount = (bytes: Uint8Array, atMost = Infinity): number => jpegScanComponents(bytes, atMost).length

/** Frame headers: SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC). */
const isFrameHeader = (code: number) => code >= 0xc0 && code <= 0xcf && code !== 0xc4 && code !== 0xc8 && code !== 0xcc

/** Progressive frames, Huffman or arithmetic coded, sequential or hierarchical: SOF2, 6, 10, 14 (B.1.1.3). */
const isProgressive = (code: number) => code === 0xc2 || code === 0xc6 || code === 0xca || code === 0xce

/** What the frame header (B.2.2) tells of how the image is decoded. */
export interface JpegFrame {
  /** SOF2, 6, 10 or 14: every scan refines the whole image, so all coefficients are kept. */
  readonly progressive: boolean
  /** Nf: components in the frame; a scan of fewer (Ns) leaves the others to later scans. */
  readonly components: number
  /** From the components' sampling factors: 1 for grey, 1.5 for colour at 4:2:0, 3 at 4:4:4. */
  readonly samplesPerPixel: number
}

/** The frame header before the first scan; undefined when it is missing or cut short. */
export const jpegFrame = (bytes: Uint8Array): JpegFrame | undefined => {
  for (const { code, offset } of jpegMarkers(bytes)) {
    if (code === startOfScan) return undefined
    if (!isFrameHeader(code)) continue
    // Length (2), precision (1), height (2), width (2), component count (1), then 3 bytes each:
    // id, sampling factors (horizontal in the high nibble), quantisation table.
    const count = bytes[offset + 9] ?? 0
    const factors = Array.from({ length: count }, (_, i) => bytes[offset + 11 + 3 * i])
    if (count === 0 || factors.some((byte) => byte === undefined)) return undefined
    const sampling = factors.map((byte = 0) => ({ h: byte >> 4, v: byte & 15 }))
    const hMax = Math.max(...sampling.map((s) => s.h))
    const vMax = Math.max(...sampling.map((s) => s.v))
    if (hMax === 0 || vMax === 0) return undefined
    return {
      progressive: isProgressive(code),
      components: count,
      samplesPerPixel: sampling.reduce((sum, s) => sum + (s.h * s.v) / (hMax * vMax), 0)
    }
  }
  return undefined
}

/**
 * Segments a JPEG that holds only its image may have (docs/model-endpoints.md, "The image the
 * model sees"): tables, restart intervals, baseline, extended or progressive Huffman frames, scans,
 * and JFIF (APP0) and Adobe (APP14) headers of their exact sizes (`canonicalHeader`). Not EXIF,
 * XMP, ICC, IPTC or comments (APP1 to APP13, APP15, COM), and not the arithmetic, lossless or
 * hierarchical frames that some model servers' decoders (stb_image in llama.cpp) cannot read.
 */
const imageOnlySegments = new Set([0xdb, 0xc4, 0xdd, 0xc0, 0xc1, 0xc2, startOfScan, endOfImage])

/** Markers walked at most for a file sent as uploaded (`jpegHoldsOnlyImage`). */
const maxSegments = 1000

const startsWith = (bytes: Uint8Array, at: number, text: string) =>
  [...text].every((char, i) => bytes[at + i] === char.charCodeAt(0))

/**
 * A JFIF header without a thumbnail (a JFXX one can hold a picture of its own: the uncropped
 * original), or an Adobe header (its colour transform says how to read the components): each of
 * exactly its size, so no other data can ride in it.
 */
const canonicalHeader = (bytes: Uint8Array, code: number, offset: number) => {
  const length = ((bytes[offset + 2] ?? 0) << 8) | (bytes[offset + 3] ?? 0)
  if (code === 0xe0) return length === 16 && startsWith(bytes, offset + 4, "JFIF\0") && bytes[offset + 16] === 0 && bytes[offset + 17] === 0
  return code === 0xee && length === 14 && startsWith(bytes, offset + 4, "Adobe")
}

/**
 * Whether a JPEG's segments are all its image's (`imageOnlySegments`, `canonicalHeader`), with at
 * least one scan, and nothing follows its end: decoders ignore bytes after EOI, which can hold
 * anything.
 */
export const jpegHoldsOnlyImage = (bytes: Uint8Array): boolean => {
  let scans = 0
  let segments = 0
  for (const { code, offset } of jpegMarkers(bytes)) {
    // An encoder writes some tens of segments; thousands are a file built to hold the thread.
    if (++segments > maxSegments) return false
    if (code >= 0xd0 && code <= 0xd7) continue // restart markers between scans' data
    if (!imageOnlySegments.has(code) && !canonicalHeader(bytes, code, offset)) return false
    if (code === startOfScan) scans++
    if (code === endOfImage) return scans > 0 && offset + 2 === bytes.length
  }
  return false
}
