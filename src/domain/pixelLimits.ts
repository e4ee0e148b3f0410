/**
 * The pixel and scan limits of check 6 (spec §4.1, §8), read from an image's header and markers
 * before libvips sees it: the guards against decompression bombs, in memory and in time.
 */
import type { ImageFormat } from "./describe.ts"
import { jpegFrame } from "./jpegMarkers.ts"
import { pngHeader } from "./pngHeader.ts"
import { isAnimatedWebp } from "./webpChunks.ts"

/**
 * Decompression-bomb guard: a frame over 100 megapixels is refused from its header, before any
 * pixel is decoded. Photographs take roughly 1.5 to 3 bits per pixel, so a 10 MB photo holds some
 * 25 to 55 megapixels; 100 leaves room for panoramas and low-quality files, while far more pixels
 * in so few bytes means flat, highly compressible data, the shape of a bomb. At the limit the whole
 * process peaked at about 120 MB resident (measured with sharp 0.35.5 on a 10,000 x 10,000 PNG,
 * EXIF-rotated or not), since libvips streams the decode into the resize. Only the first frame is
 * decoded, so the frame count does not multiply the cost. Files that cannot be streamed have a
 * lower limit (`maxWholeImageBytes`).
 */
export const maxMegapixels = 100
export const maxPixels = maxMegapixels * 1_000_000

/**
 * Memory an image decoded whole before its first row comes out may take. libjpeg decodes a JPEG
 * into a buffer of all its coefficients, 2 bytes per sample, when its frame is progressive or its
 * scans are not one scan of all its components (a scan of fewer leaves the rest to later scans),
 * even when there is only one scan: 200 MB for 100 megapixels of grey, 300 MB in colour at 4:2:0
 * (measured: the process grew by 185 and 290 MB), 600 MB at 4:4:4. An interlaced (Adam7) PNG is
 * decoded whole, each pass covering the image, into its own format: 800 MB for 100 megapixels of
 * 16-bit RGBA (measured: +895 MB; +155 MB non-interlaced). A GIF is drawn onto a canvas of its
 * whole screen, 4 bytes a pixel (measured: +475 MB at 100 megapixels, +250 MB at 49). 200 MB keeps
 * such a file within what a 100-megapixel grey one takes, so its pixel limit is lower when it has
 * more bytes a pixel: for a JPEG 66 megapixels at 4:2:0, 33 at 4:4:4; for an interlaced PNG 66 in
 * 8-bit RGB, 50 in RGBA, 25 in 16-bit RGBA; 50 for a GIF, and for an animated WebP, whose frames
 * are also drawn onto an RGBA canvas of its whole size (measured: +455 MB for a 100-megapixel
 * canvas whose first frame is 16 x 16). A baseline JPEG, a non-interlaced PNG and a still WebP
 * stream their rows and keep the common limit.
 */
const maxWholeImageBytes = 200_000_000

/** The pixel limit of an image whose decoded pixels take `bytesPerPixel` and are all held at once. */
const wholeImageLimit = (bytesPerPixel: number) => Math.min(maxPixels, maxWholeImageBytes / bytesPerPixel)

/**
 * The pixel limit of this file: the common one, lower for what is decoded whole
 * (`maxWholeImageBytes`). `scans` holds each JPEG scan's component count. A JPEG whose frame
 * cannot be read is held to the strictest JPEG limit: the decoder refuses it anyway.
 */
export const pixelLimitOf = (bytes: Uint8Array, format: ImageFormat, scans: ReadonlyArray<number>): number => {
  if (format === "jpeg") {
    const frame = jpegFrame(bytes)
    if (frame === undefined) return wholeImageLimit(2 * 3)
    const buffered = frame.progressive || scans.length > 1 || scans.some((components) => components < frame.components)
    return buffered ? wholeImageLimit(2 * frame.samplesPerPixel) : maxPixels
  }
  if (format === "png") {
    const header = pngHeader(bytes)
    return header?.interlaced === true ? wholeImageLimit(header.channels * header.bytesPerSample) : maxPixels
  }
  // libnsgif draws each frame onto an RGBA canvas of the whole screen, interlaced or not; so does
  // libwebp's demuxer for an animated WebP.
  return format === "gif" || (format === "webp" && isAnimatedWebp(bytes)) ? wholeImageLimit(4) : maxPixels
}

/**
 * Scans a JPEG may have. Each scan of a progressive JPEG is a pass over every block of the image,
 * so the scans multiply the decoding time: a flat 100-megapixel JPEG of 700 scans (300 KB) took
 * 44 s to decode. Encoders write 1 (baseline) to about 12 (libjpeg's progression writes 10 for
 * colour, 6 for grey); 32 leaves room for hand-tuned scripts while bounding the worst case to
 * some 32 passes. Counted from the markers, before libvips sees the file.
 */
export const maxJpegScans = 32

/**
 * Frames an animated WebP may have. libwebp's demuxer walks the frames before the first one to
 * reach it, and libvips asks for each frame's header: the time grows with the square of the count
 * (16 x 16 frames, header and first frame, sharp 0.35.5: 1,000 in 6 ms, 2,000 in 21 ms, 10,000 in
 * 0.5 s, 20,000 in 2.2 s, 200,000 in 337 s). Animations converted from GIF or video rarely pass a
 * few hundred frames; 2,000 is a minute at 30 frames a second. Counted from the RIFF chunks.
 */
export const maxWebpFrames = 2000
