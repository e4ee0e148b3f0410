import { describe, expect, it } from "@effect/vitest"
import { backdropOf } from "../../src/domain/backdrop.ts"

/** `count` RGBA pixels, each `pixel(i)`. */
const pixels = (count: number, pixel: (i: number) => readonly [number, number, number, number]) => {
  const rgba = new Uint8Array(count * 4)
  for (let i = 0; i < count; i++) rgba.set(pixel(i), i * 4)
  return rgba
}

describe("backdropOf", () => {
  it("a white logo on transparency is shown on near-black, said to be see-through", () => {
    expect(backdropOf(pixels(1000, (i) => (i < 300 ? [255, 255, 255, 255] : [0, 0, 0, 0])))).toEqual({ backdrop: "black", seeThrough: true })
  })

  it("a red shape, a dark logo, a grey one: white", () => {
    expect(backdropOf(pixels(1000, (i) => (i < 500 ? [220, 20, 20, 255] : [255, 255, 255, 0])))).toEqual({ backdrop: "white", seeThrough: true })
    expect(backdropOf(pixels(1000, (i) => (i < 100 ? [20, 20, 20, 255] : [0, 0, 0, 0])))).toEqual({ backdrop: "white", seeThrough: true })
    expect(backdropOf(pixels(1000, (i) => (i < 100 ? [180, 180, 180, 255] : [0, 0, 0, 0]))).backdrop).toBe("white")
  })

  it("counts what shows by its opacity: a faint black shadow under a white disc leaves it light", () => {
    const badge = pixels(1000, (i) => (i < 200 ? [255, 255, 255, 255] : i < 900 ? [0, 0, 0, 20] : [0, 0, 0, 0]))
    expect(backdropOf(badge).backdrop).toBe("black")
  })

  it("reads every pixel: a screen-door of white and clear pixels is light", () => {
    expect(backdropOf(pixels(64 * 64, (i) => ((i + Math.floor(i / 64)) % 2 === 0 ? [255, 255, 255, 255] : [0, 0, 0, 0]))))
      .toEqual({ backdrop: "black", seeThrough: true })
  })

  it("an opaque picture with soft edges (under 1% clear) has nothing to see through; nothing shows at all: white", () => {
    expect(backdropOf(pixels(1000, (i) => (i < 5 ? [0, 0, 0, 0] : [30, 90, 200, 255]))).seeThrough).toBe(false)
    expect(backdropOf(pixels(100, () => [255, 255, 255, 0]))).toEqual({ backdrop: "white", seeThrough: true })
  })
})
