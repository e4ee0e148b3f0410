/** PreparedImage values built from raw RGBA, as the image pipeline hands an image with alpha to a describer. */
import type { PreparedImage } from "../../src/domain/describe.ts"

export type Rgba = readonly [r: number, g: number, b: number, a: number]

export const red: Rgba = [255, 0, 0, 255]
export const black: Rgba = [0, 0, 0, 255]
export const white: Rgba = [255, 255, 255, 255]
export const navy: Rgba = [0, 0, 128, 255]
export const clear: Rgba = [0, 0, 0, 0]

/** An image whose pixel at (x, y) is `pixelAt(x, y)`; `source` overrides the upload metadata. */
export const prepared = (
  width: number,
  height: number,
  pixelAt: (x: number, y: number) => Rgba,
  source: Partial<PreparedImage["source"]> = {}
): PreparedImage => {
  const pixels = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) pixels.set(pixelAt(x, y), (y * width + x) * 4)
  }
  return {
    source: { format: "png", bytes: pixels.length, width, height, frames: 1, hasAlpha: false, ...source },
    width,
    height,
    channels: 4,
    pixels
  }
}

export const solid = (width: number, height: number, colour: Rgba, source: Partial<PreparedImage["source"]> = {}) =>
  prepared(width, height, () => colour, source)

/** Left half `left`, right half `right`. */
export const halves = (width: number, height: number, left: Rgba, right: Rgba): PreparedImage =>
  prepared(width, height, (x) => (x < width / 2 ? left : right))

/** The same image as the pipeline hands an opaque one over: RGB, its alpha bytes dropped. */
export const withoutAlpha = (image: PreparedImage): PreparedImage => {
  const pixels = new Uint8Array(image.width * image.height * 3)
  for (let at = 0; at < image.width * image.height; at++) pixels.set(image.pixels.subarray(at * 4, at * 4 + 3), at * 3)
  return { ...image, channels: 3, pixels }
}
