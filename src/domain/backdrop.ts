/**
 * What the model's JPEG shows behind an image's transparent parts (JPEG has no alpha). White, as
 * most pages are, unless what shows is mostly light: a white logo made for a dark page header
 * would leave the model a blank white picture to describe (found by review), so near-black then.
 * The prompt says which (prompt.ts), so the model does not take it for the image's background.
 */
export type Backdrop = "white" | "black"

export const backdropColour: Record<Backdrop, string> = { white: "#ffffff", black: "#141414" }

/** Above this luma (of 255), what shows is too light to be seen on white. */
const lightLuma = 192

/**
 * For RGBA pixels: the backdrop, and whether the image has parts to see through (at least 1% of
 * its pixels less than half opaque: the soft edge of an opaque picture is not one). Every pixel
 * counts, weighted by its opacity: a grid would miss a screen-door pattern.
 */
export const backdropOf = (rgba: Uint8Array): { readonly backdrop: Backdrop; readonly seeThrough: boolean } => {
  let weightedLuma = 0
  let opacity = 0
  let clear = 0
  for (let at = 0; at + 3 < rgba.length; at += 4) {
    const alpha = rgba[at + 3]!
    if (alpha < 128) clear++
    // Rec. 601 luma, in integers: 0.299 R + 0.587 G + 0.114 B.
    weightedLuma += alpha * (299 * rgba[at]! + 587 * rgba[at + 1]! + 114 * rgba[at + 2]!)
    opacity += alpha
  }
  const luma = opacity === 0 ? 0 : weightedLuma / opacity / 1000
  return { backdrop: luma > lightLuma ? "black" : "white", seeThrough: clear * 100 >= rgba.length / 4 }
}
