import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc, Option } from "effect"
import { detectImageFormat } from "../../src/domain/imageFormat.ts"

const bytes = (...parts: ReadonlyArray<string | ArrayLike<number>>) =>
  new Uint8Array(parts.flatMap((part) => (typeof part === "string" ? Array.from(part, (char) => char.charCodeAt(0)) : Array.from(part))))

const signatures = [
  ["jpeg", bytes([0xff, 0xd8, 0xff])],
  ["png", bytes([0x89], "PNG\r\n\x1a\n")],
  ["webp", bytes("RIFF", [0x24, 0x00, 0x00, 0x00], "WEBP")],
  ["gif", bytes("GIF87a")],
  ["gif", bytes("GIF89a")]
] as const

describe("detectImageFormat", () => {
  it.each([
    ["JPEG", bytes([0xff, 0xd8, 0xff, 0xe0]), "jpeg"],
    ["PNG", bytes([0x89], "PNG\r\n\x1a\n", [0, 0, 0, 13], "IHDR"), "png"],
    ["WebP", bytes("RIFF", [0x24, 0x00, 0x00, 0x00], "WEBPVP8 "), "webp"],
    ["GIF87a", bytes("GIF87a", [1, 0]), "gif"],
    ["GIF89a", bytes("GIF89a", [1, 0]), "gif"]
  ] as const)("%s", (_, input, format) => {
    expect(detectImageFormat(input)).toStrictEqual(Option.some(format))
  })

  it.each([
    ["empty", bytes()],
    ["JPEG SOI alone", bytes([0xff, 0xd8])],
    ["RIFF that is not WebP (WAV)", bytes("RIFF", [0, 0, 0, 0], "WAVE")],
    ["GIF of an unknown version", bytes("GIF90a")],
    ["TIFF (little-endian)", bytes("II", [0x2a, 0x00])],
    ["TIFF (big-endian)", bytes("MM", [0x00, 0x2a])],
    ["AVIF", bytes([0, 0, 0, 0x1c], "ftypavif")],
    ["HEIC", bytes([0, 0, 0, 0x18], "ftypheic")],
    ["PDF", bytes("%PDF-1.7")],
    ["SVG", bytes("<svg xmlns=\"http://www.w3.org/2000/svg\"/>")],
    ["BMP", bytes("BM")],
    ["text", bytes("hello")]
  ] as const)("%s is none of the four", (_, input) => {
    expect(detectImageFormat(input)).toStrictEqual(Option.none())
  })

  it.prop("a signature decides, whatever follows it", [fc.constantFrom(...signatures), fc.uint8Array()], ([[format, signature], tail]) => {
    expect(detectImageFormat(bytes(signature, tail))).toStrictEqual(Option.some(format))
  })

  it.prop("a signature cut short is refused", [fc.constantFrom(...signatures), fc.nat()], ([[, signature], cut]) => {
    expect(detectImageFormat(signature.subarray(0, cut % signature.length))).toStrictEqual(Option.none())
  })
})
