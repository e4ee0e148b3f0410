/**
 * §4.1 `image`: the format is detected from the content, by the signature every file of the four
 * accepted formats starts with. The file name and the part's content type are never consulted.
 */
import * as Option from "effect/Option"
import type { ImageFormat } from "./describe.ts"

const ascii = (text: string): ReadonlyArray<number> => Array.from(text, (char) => char.charCodeAt(0))

const hasAt = (bytes: Uint8Array, offset: number, signature: ReadonlyArray<number>): boolean =>
  signature.every((byte, index) => bytes[offset + index] === byte)

const signatures: ReadonlyArray<readonly [ImageFormat, (bytes: Uint8Array) => boolean]> = [
  // SOI marker followed by the first marker's 0xFF.
  ["jpeg", (bytes) => hasAt(bytes, 0, [0xff, 0xd8, 0xff])],
  ["png", (bytes) => hasAt(bytes, 0, [0x89, ...ascii("PNG\r\n\x1a\n")])],
  // A RIFF container whose form type is WEBP; bytes 4 to 7 are the container's length.
  ["webp", (bytes) => hasAt(bytes, 0, ascii("RIFF")) && hasAt(bytes, 8, ascii("WEBP"))],
  ["gif", (bytes) => hasAt(bytes, 0, ascii("GIF87a")) || hasAt(bytes, 0, ascii("GIF89a"))]
]

/** The accepted format whose signature `bytes` start with, if any. */
export const detectImageFormat = (bytes: Uint8Array): Option.Option<ImageFormat> =>
  Option.fromNullable(signatures.find(([, matches]) => matches(bytes))?.[0])

/** How a format is written for people, e.g. in `Image processing failed: <cause>`. */
export const imageFormatName: Readonly<Record<ImageFormat, string>> = {
  jpeg: "JPEG",
  png: "PNG",
  webp: "WebP",
  gif: "GIF"
}
