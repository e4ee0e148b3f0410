/**
 * The fixed palette the offline describer names colours with: 12 families, each in a dark, plain or
 * light shade. Classifying into a fixed palette keeps the wording stable (no invented colour names)
 * and lets `imageFacts` count pixels in a small array instead of a map.
 */

/** Family order is also the tie-break order when two families cover the same area. */
export const colourFamilies = [
  "black",
  "white",
  "grey",
  "red",
  "orange",
  "yellow",
  "green",
  "teal",
  "blue",
  "purple",
  "pink",
  "brown"
] as const

export type ColourFamily = (typeof colourFamilies)[number]

/** Shade order is the tie-break order inside a family: the plain name wins a tie. */
export const shades = ["normal", "dark", "light"] as const

export type Shade = (typeof shades)[number]

export interface NamedColour {
  readonly family: ColourFamily
  /** Always `normal` for black and white. */
  readonly shade: Shade
}

/** Number of palette entries; `paletteIndex` returns a value below it. */
export const paletteSize = colourFamilies.length * shades.length

const entry = (family: ColourFamily, shade: Shade): number =>
  colourFamilies.indexOf(family) * shades.length + shades.indexOf(shade)

/** Inverse of `paletteIndex`. */
export const paletteColour = (index: number): NamedColour => ({
  family: colourFamilies[Math.floor(index / shades.length)] ?? "grey",
  shade: shades[index % shades.length] ?? "normal"
})

const shadeOf = (lightness: number, darkBelow: number, lightAbove: number): Shade =>
  lightness < darkBelow ? "dark" : lightness > lightAbove ? "light" : "normal"

/** Hue in degrees [0, 360) of a colour with non-zero chroma. */
const hueOf = (r: number, g: number, b: number, max: number, delta: number): number => {
  const sector = max === r ? (g - b) / delta : max === g ? (b - r) / delta + 2 : (r - g) / delta + 4
  return (sector * 60 + 360) % 360
}

/**
 * Palette entry of one sRGB pixel (channels 0..255), by HSL rules rather than nearest neighbour:
 * near-black and low-chroma pixels are achromatic, the rest are binned by hue, with the two colours
 * people name by lightness rather than hue (pink = light red, brown = dark orange) split out.
 * Returns an index (not an object) because it runs once per sampled pixel.
 */
export const paletteIndex = (r: number, g: number, b: number): number => {
  const max = Math.max(r, g, b)
  const min = Math.min(r, g, b)
  const lightness = (max + min) / 510
  const chroma = (max - min) / 255
  if (lightness < 0.1) return entry("black", "normal")
  if (chroma < 0.1) {
    if (lightness < 0.15) return entry("black", "normal")
    if (lightness > 0.88) return entry("white", "normal")
    return entry("grey", shadeOf(lightness, 0.35, 0.65))
  }
  const shade = shadeOf(lightness, 0.3, 0.7)
  const hue = hueOf(r, g, b, max, max - min)
  if (hue < 15 || hue >= 345) return entry(lightness > 0.7 ? "pink" : "red", shade)
  if (hue < 45) return lightness < 0.4 ? entry("brown", lightness < 0.2 ? "dark" : "normal") : entry("orange", shade)
  if (hue < 70) return entry("yellow", shade)
  if (hue < 165) return entry("green", shade)
  if (hue < 190) return entry("teal", shade)
  if (hue < 260) return entry("blue", shade)
  if (hue < 315) return entry("purple", shade)
  return entry("pink", shade)
}
