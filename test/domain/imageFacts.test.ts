import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { imageFacts, orientationOf } from "../../src/domain/imageFacts.ts"
import { black, clear, halves, navy, prepared, red, type Rgba, solid, white, withoutAlpha } from "./preparedImages.ts"

describe("imageFacts", () => {
  it("reads a 200x100 red image", () => {
    expect(imageFacts(solid(200, 100, red))).toStrictEqual({
      format: "png",
      width: 200,
      height: 100,
      orientation: "wide",
      frames: 1,
      colours: [{ family: "red", shade: "normal" }],
      // L* of pure red is 53: medium, where plain luma would call it dark.
      brightness: "medium",
      transparency: "opaque"
    })
  })

  it("names both halves of a half black, half white image", () => {
    const facts = imageFacts(halves(200, 100, black, white))
    expect(facts.colours).toStrictEqual([{ family: "black", shade: "normal" }, { family: "white", shade: "normal" }])
    expect(facts.brightness).toBe("medium")
  })

  it("reads an RGB image as its opaque RGBA twin", () => {
    for (const image of [halves(200, 100, red, white), solid(30, 90, navy), prepared(64, 48, (x, y) => [x * 4, y * 5, 90, 255])]) {
      const facts = imageFacts(withoutAlpha(image))
      expect(facts).toStrictEqual(imageFacts(image))
      expect(facts.transparency).toBe("opaque")
      expect(facts.colours.length).toBeGreaterThan(0)
    }
  })

  it("calls white bright and black dark", () => {
    expect(imageFacts(solid(10, 10, white)).brightness).toBe("bright")
    expect(imageFacts(solid(10, 10, black)).brightness).toBe("dark")
    expect(imageFacts(solid(10, 10, navy)).colours).toStrictEqual([{ family: "blue", shade: "dark" }])
  })

  it("ignores fully transparent pixels", () => {
    const facts = imageFacts(solid(50, 50, clear, { hasAlpha: true }))
    expect(facts.transparency).toBe("full")
    expect(facts.colours).toStrictEqual([])
    expect(facts.brightness).toBeUndefined()

    const half = imageFacts(halves(200, 100, clear, navy))
    expect(half.transparency).toBe("partial")
    expect(half.colours).toStrictEqual([{ family: "blue", shade: "dark" }])
    expect(half.brightness).toBe("dark")
  })

  it("reads patterns finer than its grid of samples for what they are (1000x1000: one sample in each 8x8 cell)", () => {
    const checker = imageFacts(prepared(1000, 1000, (x, y) => ((x + y) % 2 === 0 ? black : white)))
    expect([checker.colours, checker.brightness]).toStrictEqual([[{ family: "black", shade: "normal" }, { family: "white", shade: "normal" }], "medium"])
    const screenDoor = imageFacts(prepared(1000, 1000, (x, y) => ((x + y) % 2 === 0 ? red : clear)))
    expect([screenDoor.transparency, screenDoor.colours]).toStrictEqual(["partial", [{ family: "red", shade: "normal" }]])
    const stripes = imageFacts(prepared(1000, 1000, (_, y) => (y % 2 === 0 ? clear : red)))
    expect(stripes.transparency).toBe("partial")
    const columns = imageFacts(prepared(1000, 1000, (x) => (x % 2 === 0 ? clear : red)))
    expect(columns.transparency).toBe("partial")
  })

  it("counts each pixel by its opacity: a white badge over a faint black shadow is bright", () => {
    const badge = imageFacts(prepared(200, 200, (x, y) => (x < 60 ? white : y < 180 ? [0, 0, 0, 20] : clear)))
    expect(badge.brightness).toBe("bright")
    expect(badge.colours[0]).toStrictEqual({ family: "white", shade: "normal" })
  })

  it("counts semi-transparent pixels as partial transparency", () => {
    expect(imageFacts(solid(20, 20, [255, 0, 0, 128])).transparency).toBe("partial")
    expect(imageFacts(solid(20, 20, red)).transparency).toBe("opaque")
  })

  it("reports at most 3 colours, each covering at least 10%", () => {
    const stripes: ReadonlyArray<Rgba> = [red, white, black, navy, [0, 200, 0, 255]]
    expect(imageFacts(prepared(100, 20, (x) => stripes[x % 5] ?? red)).colours).toHaveLength(3)
    // 95% white, 5% red: the red is a detail, not a dominant colour.
    const mostlyWhite = imageFacts(prepared(100, 100, (x) => (x < 5 ? red : white)))
    expect(mostlyWhite.colours).toStrictEqual([{ family: "white", shade: "normal" }])
  })

  it("takes size, orientation and frames from the source", () => {
    const facts = imageFacts(solid(1000, 750, red, { width: 4000, height: 3000, frames: 12, format: "gif" }))
    expect(facts).toMatchObject({ width: 4000, height: 3000, orientation: "wide", frames: 12, format: "gif" })
  })

  it("tells wide, tall and square apart", () => {
    expect(orientationOf(200, 100)).toBe("wide")
    expect(orientationOf(100, 200)).toBe("tall")
    expect(orientationOf(100, 100)).toBe("square")
    expect(orientationOf(1000, 990)).toBe("square")
    expect(orientationOf(1000, 900)).toBe("wide")
  })

  it("is cheap on the largest prepared image (1000x1000)", () => {
    const image = prepared(1000, 1000, (x, y) => [x % 256, y % 256, (x + y) % 256, 255])
    const start = performance.now()
    for (let run = 0; run < 10; run++) imageFacts(image)
    // Sampling reads ~16k of the million pixels; generous bound so slow CI machines pass.
    expect((performance.now() - start) / 10).toBeLessThan(100)
  })

  it.prop(
    "is deterministic and never names more than 3 colours",
    [fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 40 }), fc.integer()],
    ([width, height, seed]) => {
      const image = prepared(width, height, (x, y) => {
        const v = Math.imul(seed ^ (x * 73856093) ^ (y * 19349663), 2654435761) >>> 0
        return [v & 255, (v >>> 8) & 255, (v >>> 16) & 255, (v >>> 24) & 255]
      })
      const facts = imageFacts(image)
      expect(imageFacts(image)).toStrictEqual(facts)
      expect(facts.colours.length).toBeLessThanOrEqual(3)
      expect(facts.colours.length === 0).toBe(facts.transparency === "full")
    }
  )
})
