import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import type { Sharp } from "sharp"
import { jpegFrame, jpegMarkers, jpegScanComponents, jpegScanCount, jpegScans, withoutStrays } from "../../src/domain/jpegMarkers.ts"
import { concatBytes } from "../support/multipartBody.ts"
import { noise } from "../fixtures/images.ts"

const soi = new Uint8Array([0xff, 0xd8])
const eoi = new Uint8Array([0xff, 0xd9])

/** A segment with a length field: marker, length, `content`. */
const segment = (code: number, content: Uint8Array) =>
  concatBytes([new Uint8Array([0xff, code, (content.length + 2) >> 8, (content.length + 2) & 0xff]), content])

/** A scan of `components` (Ns) components: its SOS header, then entropy-coded data. */
const scan = (data: Uint8Array, components = 1) =>
  concatBytes([
    segment(0xda, new Uint8Array([components, ...Array.from({ length: components }, (_, i) => [i + 1, 0]).flat(), 0, 63, 0])),
    data
  ])

/**
 * Entropy-coded data as an encoder writes it: every 0xFF byte stuffed with 0x00, restart markers
 * between intervals, and fill bytes before the next marker.
 */
const entropyData = fc.tuple(
  fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 4 }),
  fc.nat({ max: 3 })
).map(([intervals, fill]) =>
  concatBytes([
    ...intervals.flatMap((interval, i) => [
      ...(i > 0 ? [new Uint8Array([0xff, 0xd0 + (i % 8)])] : []),
      new Uint8Array(Array.from(interval).flatMap((byte) => (byte === 0xff ? [0xff, 0x00] : [byte])))
    ]),
    new Uint8Array(fill).fill(0xff)
  ])
)

/** Segments that are not scans, content included (which may hold 0xFF and SOS-looking bytes). */
const otherSegment = fc.tuple(fc.constantFrom(0xc4, 0xdb, 0xdd, 0xe0, 0xe1, 0xfe), fc.uint8Array({ maxLength: 60 }))
  .map(([code, content]) => segment(code, content))

const samplesPerPixel = (bytes: Uint8Array) => jpegFrame(bytes)?.samplesPerPixel

const encode = (image: Sharp) => Effect.promise(async () => new Uint8Array(await image.toBuffer()))

describe("jpegScanCount", () => {
  it.prop("counts the SOS segments, whatever the entropy-coded data and segments hold", [
    fc.array(fc.oneof(entropyData.map((data) => ({ scan: true, bytes: scan(data) })), otherSegment.map((bytes) => ({ scan: false, bytes }))), { maxLength: 30 }),
    fc.boolean()
  ], ([segments, ended]) => {
    const bytes = concatBytes([soi, ...segments.map((s) => s.bytes), ...(ended ? [eoi] : [])])
    const scans = segments.filter((s) => s.scan).length
    expect(jpegScanCount(bytes)).toBe(scans)
    expect(jpegScanCount(bytes, 2)).toBe(Math.min(scans, 3))
  })

  it.effect("reads what libjpeg writes: 1 scan baseline, several progressive", () =>
    Effect.gen(function* () {
      expect(jpegScanCount(yield* encode(noise(64, 48).jpeg()))).toBe(1)
      // libjpeg's standard progression for colour: 10 scans (mozjpeg's may differ, never 1).
      const progressive = jpegScanCount(yield* encode(noise(64, 48).jpeg({ progressive: true })))
      expect(progressive).toBeGreaterThan(1)
      expect(progressive).toBeLessThanOrEqual(12)
    }))

  it("lists each scan's component count (Ns), as far as asked", () => {
    const bytes = concatBytes([soi, scan(new Uint8Array([1]), 3), scan(new Uint8Array([2])), scan(new Uint8Array(0), 2), eoi])
    expect(jpegScanComponents(bytes)).toStrictEqual([3, 1, 2])
    expect(jpegScanComponents(bytes, 1)).toStrictEqual([3, 1])
    // A scan header cut short still counts as a scan, of no components.
    expect(jpegScanComponents(concatBytes([soi, scan(new Uint8Array(0), 3)]).subarray(0, 6))).toStrictEqual([0])
  })

  it("stops at EOI: what follows is not the image's", () => {
    expect(jpegScanCount(concatBytes([soi, scan(new Uint8Array([1, 2])), eoi, scan(new Uint8Array(0))]))).toBe(1)
  })

  it("yields what a truncated file has, and nothing for what is not a JPEG", () => {
    const whole = concatBytes([soi, scan(new Uint8Array([0xff, 0x00, 7])), scan(new Uint8Array([9])), eoi])
    expect(jpegScanCount(whole.subarray(0, whole.length - 4))).toBe(2)
    // A marker seen counts, even when its segment is cut short.
    expect(jpegScanCount(whole.subarray(0, 5))).toBe(1)
    expect(jpegScanCount(whole.subarray(0, 3))).toBe(0)
    expect(jpegScanCount(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBe(0)
    expect(jpegScanCount(new Uint8Array(0))).toBe(0)
  })

  it("passes over bytes that are not a marker where one must be, as libjpeg does: no scan hides behind them", () => {
    const strayed = concatBytes([soi, "not markers", scan(new Uint8Array([1])), new Uint8Array([0, 0, 0xff, 0]), scan(new Uint8Array(0)), eoi])
    expect(jpegScanCount(strayed)).toBe(2)
  })

  it("a stuffed 0xFF 0xDA inside a scan's data is data, not a second scan", () => {
    // 0xFF 0x00 then 0xDA: the stuffed byte and an ordinary byte.
    expect(jpegScanCount(concatBytes([soi, scan(new Uint8Array([0xff, 0x00, 0xda, 0xff, 0xd3, 0xda])), eoi]))).toBe(1)
  })

  it("lists the markers with their offsets", () => {
    const bytes = concatBytes([soi, segment(0xe0, new Uint8Array(3)), scan(new Uint8Array([1])), eoi])
    expect(Array.from(jpegMarkers(bytes))).toStrictEqual([
      { code: 0xe0, offset: 2 },
      { code: 0xda, offset: 9 },
      { code: 0xd9, offset: 20 }
    ])
  })
})

describe("jpegFrame", () => {
  it.effect("grey 1, colour at 4:2:0 1.5, at 4:4:4 3", () =>
    Effect.gen(function* () {
      expect(samplesPerPixel(yield* encode(noise(64, 48).toColourspace("b-w").jpeg()))).toBe(1)
      expect(samplesPerPixel(yield* encode(noise(64, 48).jpeg({ chromaSubsampling: "4:2:0" })))).toBe(1.5)
      expect(samplesPerPixel(yield* encode(noise(64, 48).jpeg({ chromaSubsampling: "4:4:4", progressive: true })))).toBe(3)
    }))

  it.effect("progressive for SOF2 (cjpeg, sharp), not for baseline; the frame's component count", () =>
    Effect.gen(function* () {
      expect(jpegFrame(yield* encode(noise(64, 48).jpeg()))).toStrictEqual({ progressive: false, components: 3, samplesPerPixel: 1.5 })
      expect(jpegFrame(yield* encode(noise(64, 48).toColourspace("b-w").jpeg({ progressive: true })))).toStrictEqual({
        progressive: true,
        components: 1,
        samplesPerPixel: 1
      })
    }))

  it("progressive for SOF2, 6, 10 and 14 (Huffman or arithmetic), sequential for SOF0, 1, 3 and 9", () => {
    const frameOf = (code: number) => segment(code, new Uint8Array([8, 0, 16, 0, 16, 1, 1, 0x11, 0]))
    const progressive = (code: number) => jpegFrame(concatBytes([soi, frameOf(code), scan(new Uint8Array(0)), eoi]))?.progressive
    expect([0xc2, 0xc6, 0xca, 0xce].map(progressive)).toStrictEqual([true, true, true, true])
    expect([0xc0, 0xc1, 0xc3, 0xc9].map(progressive)).toStrictEqual([false, false, false, false])
  })

  it("undefined without a whole frame header before the first scan", () => {
    const frame = segment(0xc2, new Uint8Array([8, 0, 16, 0, 16, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]))
    expect(samplesPerPixel(concatBytes([soi, frame, scan(new Uint8Array(0)), eoi]))).toBe(1.5)
    expect(samplesPerPixel(concatBytes([soi, frame]).subarray(0, 19))).toBeUndefined()
    expect(samplesPerPixel(concatBytes([soi, scan(new Uint8Array(0)), frame, eoi]))).toBeUndefined()
  })
})

describe("withoutStrays", () => {
  const text = (value: string) => new TextEncoder().encode(value)

  it.prop("takes out exactly the bytes that are no marker where one must be, keeping fill bytes and every segment", [
    fc.array(fc.tuple(otherSegment, fc.uint8Array({ maxLength: 6 }).map((bytes) => bytes.map((byte) => (byte === 0xff ? 0x12 : byte))), fc.nat({ max: 2 })), { maxLength: 8 }),
    entropyData
  ], ([segments, data]) => {
    const clean = concatBytes([soi, ...segments.flatMap(([segment, , fill]) => [new Uint8Array(fill).fill(0xff), segment]), scan(data), eoi])
    const strayed = concatBytes([soi, ...segments.flatMap(([segment, stray, fill]) => [stray, new Uint8Array(fill).fill(0xff), segment]), scan(data), eoi])
    const { strays } = jpegScans(strayed)
    expect(strays.length).toBe(segments.filter(([, stray]) => stray.length > 0).length)
    // Fill bytes after stray ones go with them; libjpeg skips both.
    const removed = strays.reduce((sum, [from, to]) => sum + to - from, 0)
    expect(removed).toBe(segments.reduce((sum, [, stray, fill]) => sum + stray.length + (stray.length > 0 ? fill : 0), 0))
    expect(Array.from(jpegMarkers(withoutStrays(strayed, strays))).map((m) => m.code))
      .toStrictEqual(Array.from(jpegMarkers(clean)).map((m) => m.code))
  })

  it("gives the same bytes back when there are none", () => {
    const bytes = concatBytes([soi, segment(0xe0, new Uint8Array(3)), scan(new Uint8Array([1])), eoi])
    expect(withoutStrays(bytes, jpegScans(bytes).strays)).toBe(bytes)
  })

  it("junk before the frame header and before the first scan", () => {
    const clean = concatBytes([soi, segment(0xc0, new Uint8Array(9)), scan(new Uint8Array([1])), eoi])
    const strayed = concatBytes([soi, text("junk"), segment(0xc0, new Uint8Array(9)), new Uint8Array([0x12, 0x34]), scan(new Uint8Array([1])), eoi])
    expect(withoutStrays(strayed, jpegScans(strayed).strays)).toStrictEqual(clean)
  })
})
