/**
 * What the offline describer can honestly say about an image: facts measured from the prepared
 * RGBA pixels and the source metadata, never objects or scenes (README, The offline describer: it cannot see).
 */
import { colourFamilies, type NamedColour, paletteColour, paletteIndex, paletteSize, shades } from "./colourPalette.ts"
import type { ImageFormat, PreparedImage } from "./describe.ts"

/**
 * Wide, tall or square: the plain words. Not "landscape" and "portrait", which a reader of alt text
 * takes for what the image shows (scenery, a face) rather than its shape.
 */
export type Orientation = "wide" | "tall" | "square"
export type Brightness = "dark" | "medium" | "bright"
/** `partial`: some visible pixels are see-through; `full`: no visible pixel at all. */
export type Transparency = "opaque" | "partial" | "full"

export interface ImageFacts {
  readonly format: ImageFormat
  /** Size of the upload (after EXIF orientation), the size a reader of the text knows the image by. */
  readonly width: number
  readonly height: number
  readonly orientation: Orientation
  /** More than 1 for an animation; the pixels are its first frame. */
  readonly frames: number
  /** Most covering first, at most 3; empty when nothing is visible. */
  readonly colours: ReadonlyArray<NamedColour>
  /** Undefined when nothing is visible. */
  readonly brightness: Brightness | undefined
  readonly transparency: Transparency
}

/** Sides within 2% of each other read as square; a 1000x990 image is not "wide" to anyone. */
export const orientationOf = (width: number, height: number): Orientation =>
  Math.abs(width - height) <= 0.02 * Math.max(width, height) ? "square" : width > height ? "wide" : "tall"

/** About 16k samples whatever the size: a 1000x1000 image is read every 8th pixel of every 8th row. */
const targetSamples = 16_384

/** A family must cover this share of the visible pixels to be called dominant. */
const dominantShare = 0.1
const maxColours = 3

/** sRGB channel to linear light, precomputed once for the 256 channel values. */
const linear = Array.from({ length: 256 }, (_, v) => {
  const c = v / 255
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
})

/**
 * CIE L* (0..100), perceived lightness: pure red reads as medium, not dark as plain luma would say.
 */
const perceivedLightness = (r: number, g: number, b: number): number => {
  const y = 0.2126 * (linear[r] ?? 0) + 0.7152 * (linear[g] ?? 0) + 0.0722 * (linear[b] ?? 0)
  return y > 216 / 24389 ? 116 * Math.cbrt(y) - 16 : (24389 / 27) * y
}

const brightnessOf = (meanLightness: number): Brightness =>
  meanLightness < 35 ? "dark" : meanLightness > 65 ? "bright" : "medium"

/**
 * Up to 3 families covering at least 10% each (of the opacity seen), most covering first, each in
 * its commonest shade.
 */
const dominantColours = (counts: Float64Array, visible: number): ReadonlyArray<NamedColour> =>
  colourFamilies
    .map((_, family) => {
      const shadeCounts = shades.map((_, shade) => counts[family * shades.length + shade] ?? 0)
      // indexOf(max) picks the first shade on a tie, which is the plain one.
      const commonest = shadeCounts.indexOf(Math.max(...shadeCounts))
      return {
        family,
        total: shadeCounts.reduce((sum, n) => sum + n, 0),
        colour: paletteColour(family * shades.length + commonest)
      }
    })
    // Stable order on a tie: the palette order.
    .sort((a, b) => b.total - a.total || a.family - b.family)
    .filter((family, rank) => family.total > 0 && (rank === 0 || family.total >= dominantShare * visible))
    .slice(0, maxColours)
    .map((family) => family.colour)

/**
 * Measures the image at one sample in each cell of a regular grid (cheap on the largest 1000x1000
 * buffer), at a place in the cell that moves from cell to cell: at the same place in every cell, a
 * pattern whose period divides the grid's (a checkerboard, a screen-door of clear pixels, stripes)
 * would be read as one of its colours (found by review). The places are fixed, so the text is
 * deterministic. Each sample counts by its opacity: a faint shadow counts for little, and a fully
 * transparent pixel, whose colour is meaningless, not at all.
 */
export const imageFacts = (image: PreparedImage): ImageFacts => {
  const { width, height, channels, pixels } = image
  const step = Math.max(1, Math.ceil(Math.sqrt((width * height) / targetSamples)))
  const weights = new Float64Array(paletteSize)
  let visible = 0
  let seeThrough = 0
  let lightnessSum = 0
  for (let row = 0; row * step < height; row++) {
    for (let column = 0; column * step < width; column++) {
      // The place's parity changes from one cell to the next across and down, in x, in y and in
      // x + y (the multipliers' sums 3 + 2 and 2 + 5 are odd).
      const x = column * step + ((column * 3 + row * 2) % step)
      const y = row * step + ((row * 5 + column * 2) % step)
      if (y >= height || x >= width) continue
      const at = (y * width + x) * channels
      const alpha = channels === 4 ? pixels[at + 3] ?? 0 : 255
      if (alpha < 255) seeThrough++
      if (alpha === 0) continue
      const r = pixels[at] ?? 0
      const g = pixels[at + 1] ?? 0
      const b = pixels[at + 2] ?? 0
      const weight = alpha / 255
      visible += weight
      const colour = paletteIndex(r, g, b)
      weights[colour] = (weights[colour] ?? 0) + weight
      lightnessSum += weight * perceivedLightness(r, g, b)
    }
  }
  return {
    format: image.source.format,
    width: image.source.width,
    height: image.source.height,
    orientation: orientationOf(image.source.width, image.source.height),
    frames: image.source.frames,
    colours: visible === 0 ? [] : dominantColours(weights, visible),
    brightness: visible === 0 ? undefined : brightnessOf(lightnessSum / visible),
    transparency: visible === 0 ? "full" : seeThrough > 0 ? "partial" : "opaque"
  }
}
