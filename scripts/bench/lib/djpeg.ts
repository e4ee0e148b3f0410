/**
 * The JPEG decode floor, measured by a decoder outside this project: libjpeg-turbo's own `djpeg`
 * (Debian: `apt-get install libjpeg-turbo-progs`) decoding a file to nowhere, p50 wall time of the
 * process (its start, about 1 ms, included). Used by `stages.ts` and `overhead.ts`, so each ratio
 * to the floor has its floor measured in the same run.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { percentile } from "./stats.ts"

export type Scale = "1/1" | "1/2" | "1/4" | "1/8"

export const djpegPath = Bun.which("djpeg")

export const djpegVersion = (): string =>
  djpegPath === null ? "not installed" : (Bun.spawnSync([djpegPath, "-version"]).stderr.toString().split("\n")[0] ?? "unknown version").trim()

/**
 * The scale libvips' shrink-on-load decodes at for an output of `longestSide` (the service resizes
 * to 1,000 px, `limits.longestSide`): the smallest 1/2^k that still gives at least that many pixels.
 */
export const scaleFor = (width: number, height: number, longestSide: number): Scale => {
  const longest = Math.max(width, height)
  return longest / 8 >= longestSide ? "1/8" : longest / 4 >= longestSide ? "1/4" : longest / 2 >= longestSide ? "1/2" : "1/1"
}

/** p50 of `repeats` decodes (after one not counted) at each scale; undefined without `djpeg`. */
export const timeDjpeg = async (
  jpeg: Uint8Array,
  scales: ReadonlyArray<Scale>,
  repeats: number
): Promise<ReadonlyArray<number> | undefined> => {
  if (djpegPath === null) return undefined
  const dir = await mkdtemp(path.join(tmpdir(), "bench-djpeg-"))
  const file = path.join(dir, "input.jpg")
  await Bun.write(file, jpeg)
  try {
    const decode = async (scale: Scale) => {
      const run = Bun.spawn([djpegPath, "-scale", scale, "-outfile", "/dev/null", file], { stderr: "ignore" })
      if ((await run.exited) !== 0) throw new Error(`djpeg -scale ${scale} failed`)
    }
    const results: Array<number> = []
    for (const scale of scales) {
      await decode(scale)
      const samples: Array<number> = []
      for (let i = 0; i < repeats; i++) {
        const started = performance.now()
        await decode(scale)
        samples.push(performance.now() - started)
      }
      results.push(percentile(samples, 50))
    }
    return results
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
