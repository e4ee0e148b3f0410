import { describe, expect, it } from "@effect/vitest"
import sharp from "sharp"
import { isAnimatedWebp, webpFrames } from "../../src/domain/webpChunks.ts"
import { animatedWebp } from "../support/hostileImages.ts"

const still = new Uint8Array(await sharp({ create: { width: 20, height: 10, channels: 3, background: "#336699" } }).webp().toBuffer())

describe("a WebP's chunks, read before it is decoded", () => {
  it("an animated file says so in its extended header; a still one does not", async () => {
    expect(isAnimatedWebp(await animatedWebp(3))).toBe(true)
    expect(isAnimatedWebp(still)).toBe(false)
  })

  it("frames are counted up to one past the limit asked about", async () => {
    const file = await animatedWebp(50)
    expect(webpFrames(file, 100)).toBe(50)
    expect(webpFrames(file, 10)).toBe(11)
    expect(webpFrames(still, 10)).toBe(0)
  })

  it("a chunk size past the end of the file stops the walk", async () => {
    const file = (await animatedWebp(5)).slice()
    // The first frame's size, made huge: nothing after it is read.
    const firstFrame = file.findIndex((_, at) => String.fromCharCode(...file.subarray(at, at + 4)) === "ANMF")
    new DataView(file.buffer).setUint32(firstFrame + 4, 0xfffffff0, true)
    expect(webpFrames(file, 10)).toBe(1)
    expect(webpFrames(file.subarray(0, 7), 10)).toBe(0)
  })
})
