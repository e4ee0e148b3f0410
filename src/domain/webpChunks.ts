/**
 * What a WebP's RIFF chunks tell before it is decoded (RFC 9649, 2.5 and 2.7): whether it is
 * animated, how many frames (`ANMF` chunks) it holds, and whether it holds anything but its image.
 */

/** "RIFF", the file's size, "WEBP": the chunks start after them. */
const firstChunk = 12

const fourCc = (bytes: Uint8Array, at: number) => String.fromCharCode(...bytes.subarray(at, at + 4))

/** Whether the chunk at `at` is a frame (`ANMF`), read byte by byte: a 10 MB file holds over a million chunks. */
const isFrame = (bytes: Uint8Array, at: number) =>
  bytes[at] === 0x41 && bytes[at + 1] === 0x4e && bytes[at + 2] === 0x4d && bytes[at + 3] === 0x46

/** The animation flag of the extended header (`VP8X`). */
const animationFlag = 0x02

/** Whether the file's extended header (`VP8X`, always its first chunk) says it is animated. */
export const isAnimatedWebp = (bytes: Uint8Array): boolean =>
  bytes.length > firstChunk + 8 && fourCc(bytes, firstChunk) === "VP8X" && ((bytes[firstChunk + 8] ?? 0) & animationFlag) !== 0

/**
 * The frames of an animated WebP, counted up to `upTo + 1` (enough to refuse it). Chunks are
 * walked by their sizes, padded to even; a size past the end stops the walk (the decoder refuses
 * such a file).
 */
export const webpFrames = (bytes: Uint8Array, upTo: number): number => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let frames = 0
  for (let at = firstChunk; at + 8 <= bytes.length && frames <= upTo;) {
    if (isFrame(bytes, at)) frames++
    const size = view.getUint32(at + 4, true)
    at += 8 + size + (size % 2)
  }
  return frames
}

/** The size of an extended header's payload (RFC 9649, 2.7): flags, reserved bytes, canvas size. */
const extendedHeaderSize = 10

/**
 * Whether a WebP holds only its image (docs/model-endpoints.md, "The image the model sees"): its
 * one lossy or lossless bitstream chunk, alone or after an extended header (`VP8X`) that flags
 * nothing (no ICC profile, EXIF, XMP, animation or alpha: only opaque images are sent), ending
 * where the RIFF container ends, which is where the file ends: decoders ignore bytes past the
 * container, and chunks past the bitstream.
 */
export const webpHoldsOnlyImage = (bytes: Uint8Array): boolean => {
  if (bytes.length < firstChunk + 8) return false
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (view.getUint32(4, true) + 8 !== bytes.length) return false
  let at = firstChunk
  if (fourCc(bytes, at) === "VP8X") {
    if (view.getUint32(at + 4, true) !== extendedHeaderSize || view.getUint32(at + 8, true) !== 0) return false
    at += 8 + extendedHeaderSize
  }
  const type = fourCc(bytes, at)
  if (at + 8 > bytes.length || (type !== "VP8 " && type !== "VP8L")) return false
  const size = view.getUint32(at + 4, true)
  return at + 8 + size + (size % 2) === bytes.length
}
