import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { colourFamilies, paletteColour, paletteIndex, paletteSize, shades } from "../../src/domain/colourPalette.ts"

const name = (r: number, g: number, b: number) => paletteColour(paletteIndex(r, g, b))

describe("colourPalette", () => {
  it.each([
    [[255, 0, 0], "red", "normal"],
    [[139, 0, 0], "red", "dark"],
    [[0, 0, 128], "blue", "dark"],
    [[0, 0, 255], "blue", "normal"],
    [[173, 216, 230], "blue", "light"],
    [[0, 0, 0], "black", "normal"],
    [[10, 10, 40], "black", "normal"],
    [[255, 255, 255], "white", "normal"],
    [[250, 245, 240], "white", "normal"],
    [[128, 128, 128], "grey", "normal"],
    [[60, 60, 60], "grey", "dark"],
    [[200, 200, 200], "grey", "light"],
    [[255, 192, 203], "pink", "light"],
    [[255, 20, 147], "pink", "normal"],
    [[139, 69, 19], "brown", "normal"],
    [[255, 165, 0], "orange", "normal"],
    [[255, 255, 0], "yellow", "normal"],
    [[0, 128, 0], "green", "dark"],
    [[0, 200, 0], "green", "normal"],
    [[0, 128, 128], "teal", "dark"],
    [[64, 224, 208], "teal", "normal"],
    [[128, 0, 128], "purple", "dark"],
    [[238, 130, 238], "purple", "light"]
  ] as const)("%j is %s (%s)", ([r, g, b], family, shade) => {
    expect(name(r, g, b)).toStrictEqual({ family, shade })
  })

  it.prop("every pixel lands on a palette entry; black and white have no shade", [fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })], ([r, g, b]) => {
    const index = paletteIndex(r, g, b)
    expect(index).toBeGreaterThanOrEqual(0)
    expect(index).toBeLessThan(paletteSize)
    const colour = paletteColour(index)
    expect(colourFamilies).toContain(colour.family)
    expect(shades).toContain(colour.shade)
    if (colour.family === "black" || colour.family === "white") expect(colour.shade).toBe("normal")
  })
})
