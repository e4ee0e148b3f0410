import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Sharp } from "sharp"
import { pngHeader } from "../../src/domain/pngHeader.ts"
import { animatedPng, flatPng, solid } from "../fixtures/images.ts"

const encode = (image: Sharp) => Effect.promise(async () => new Uint8Array(await image.toBuffer()))

describe("pngHeader", () => {
  it("size, interlace and decoded layout from IHDR", () => {
    expect(pngHeader(flatPng({ width: 300, height: 200, bitDepth: 16, colourType: 6, interlaced: true }))).toStrictEqual({
      width: 300,
      height: 200,
      interlaced: true,
      channels: 4,
      bytesPerSample: 2,
      frames: 1
    })
    expect(pngHeader(flatPng({ width: 3, height: 2, bitDepth: 1, colourType: 0, interlaced: false }))).toMatchObject({ interlaced: false, channels: 1, bytesPerSample: 1 })
    expect(pngHeader(flatPng({ width: 3, height: 2, bitDepth: 8, colourType: 4, interlaced: false }))).toMatchObject({ channels: 2 })
  })

  it.effect("a palette decodes as RGB, and a tRNS chunk before the data adds alpha", () =>
    Effect.gen(function* () {
      expect(pngHeader(yield* encode(solid(20, 10, { r: 1, g: 2, b: 3 }).removeAlpha().png({ palette: true, progressive: true })))).toMatchObject({
        interlaced: true,
        channels: 3
      })
      expect(pngHeader(yield* encode(solid(20, 10, { r: 1, g: 2, b: 3 }, 0.5).png({ palette: true })))).toMatchObject({ channels: 4 })
    }))

  it("an animated PNG's frames from its acTL chunk", () => {
    const png = flatPng({ width: 3, height: 2, bitDepth: 8, colourType: 2, interlaced: false })
    expect(pngHeader(animatedPng(png, 24))).toMatchObject({ width: 3, frames: 24 })
  })

  it("undefined when IHDR is not whole and first, or its colour type is unknown", () => {
    const png = flatPng({ width: 3, height: 2, bitDepth: 8, colourType: 2, interlaced: false })
    expect(pngHeader(png.subarray(0, 28))).toBeUndefined()
    const unknown = new Uint8Array(png)
    unknown[25] = 5
    expect(pngHeader(unknown)).toBeUndefined()
  })
})
