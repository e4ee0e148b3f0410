/**
 * When the model is sent the uploaded file itself rather than a JPEG made from its pixels
 * (docs/model-endpoints.md, "The image the model sees"): it already is what the model would get,
 * so decoding it to the full size and encoding it again would only cost time and detail.
 */
import type { ImageFormat } from "./describe.ts"
import { jpegHoldsOnlyImage } from "./jpegMarkers.ts"
import { limits } from "./limits.ts"
import { pngHoldsOnlyImage } from "./pngHeader.ts"
import { webpHoldsOnlyImage } from "./webpChunks.ts"

/** The formats a model endpoint may be declared to take as uploaded (`MODEL_IMAGE_AS_UPLOADED`). */
export const asUploadedFormats = ["jpeg", "png", "webp"] as const
export type AsUploadedFormat = typeof asUploadedFormats[number]

/** Whether the file has nothing in it but its image: no EXIF (a place), no profile, no text. */
const holdsOnlyImage: Record<AsUploadedFormat, (bytes: Uint8Array) => boolean> = {
  jpeg: jpegHoldsOnlyImage,
  png: pngHoldsOnlyImage,
  webp: webpHoldsOnlyImage
}

/**
 * At most 4 bits a pixel: a photo's JPEG or WebP takes 1 to 2, a flat graphic's PNG less; a
 * photo's PNG takes 10 and more, which would send the model several times the bytes of its JPEG.
 */
const maxBytesPerPixel = 0.5

/** What the header says of an upload that decides whether it goes to the model as it came. */
export interface UploadedImageFacts {
  readonly format: ImageFormat
  /** The bytes the decoder reads (a JPEG's stray bytes taken out). */
  readonly bytes: Uint8Array
  readonly width: number
  readonly height: number
  readonly frames: number
  /** EXIF orientation, 1 (or none) when the pixels are stored upright. */
  readonly orientation: number
  /** 8-bit sRGB or greyscale, as the model's JPEG would be. */
  readonly eightBitRgb: boolean
  readonly hasAlpha: boolean
}

/**
 * The upload goes as it came when the endpoint takes its format and it is exactly what the JPEG
 * made from it would show: one frame, upright, at most the longest side of the model's image,
 * 8-bit sRGB or grey, opaque (transparency is flattened for the model, domain/backdrop.ts; some
 * models read it as black), no more bytes than `maxBytesPerPixel` allows, and nothing in it but
 * the image.
 */
export const sentAsUploaded = (image: UploadedImageFacts, formats: ReadonlyArray<AsUploadedFormat>): boolean => {
  const format = formats.find((taken) => taken === image.format)
  return format !== undefined &&
    image.frames === 1 &&
    image.orientation === 1 &&
    Math.max(image.width, image.height) <= limits.longestSide &&
    image.eightBitRgb &&
    !image.hasAlpha &&
    image.bytes.length <= image.width * image.height * maxBytesPerPixel &&
    holdsOnlyImage[format](image.bytes)
}
