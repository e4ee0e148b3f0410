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
 * The scale sharp's shrink-on-load decodes a JPEG at for an output of `longestSide` (the service
 * resizes to 1,000 px, `limits.longestSide`): the largest of 1/8, 1/4, 1/2 the shrink allows, halved
 * again when the shrink's whole part equals it (sharp 0.35 `pipeline.cc`, "Lower shrink-on-load for
 * known libjpeg rounding errors"): a 4000 px photo is decoded at 1/2, not 1/4.
 */
export const scaleFor = (width: number, height: number, longestSide: number): Scale => {
  const shrink = Math.max(width, height) / longestSide
  const allowed = [8, 4, 2].find((factor) => shrink >= factor) ?? 1
  const factor = allowed > 1 && Math.floor(shrink) === allowed ? allowed / 2 : allowed
  return factor === 1 ? "1/1" : `1/${factor}` as Scale
}

export interface DjpegTimer {
  /** One decode of the file at `scale`: the wall time of the process, in ms. */
  readonly decode: (scale: Scale) => Promise<number>
  /** Removes the file. */
  readonly close: () => Promise<void>
}

/** `jpeg` in a file for `djpeg` to decode, as often as asked; undefined without `djpeg`. */
export const djpegTimer = async (jpeg: Uint8Array): Promise<DjpegTimer | undefined> => {
  const djpeg = djpegPath
  if (djpeg === null) return undefined
  const dir = await mkdtemp(path.join(tmpdir(), "bench-djpeg-"))
  const file = path.join(dir, "input.jpg")
  await Bun.write(file, jpeg)
  return {
    decode: async (scale) => {
      const started = performance.now()
      const run = Bun.spawn([djpeg, "-scale", scale, "-outfile", "/dev/null", file], { stderr: "ignore" })
      if ((await run.exited) !== 0) throw new Error(`djpeg -scale ${scale} failed`)
      return performance.now() - started
    },
    close: () => rm(dir, { recursive: true, force: true })
  }
}

/** p50 of `repeats` decodes (after one not counted) at each scale; undefined without `djpeg`. */
export const timeDjpeg = async (
  jpeg: Uint8Array,
  scales: ReadonlyArray<Scale>,
  repeats: number
): Promise<ReadonlyArray<number> | undefined> => {
  const timer = await djpegTimer(jpeg)
  if (timer === undefined) return undefined
  try {
    const results: Array<number> = []
    for (const scale of scales) {
      await timer.decode(scale)
      const samples: Array<number> = []
      for (let i = 0; i < repeats; i++) samples.push(await timer.decode(scale))
      results.push(percentile(samples, 50))
    }
    return results
  } finally {
    await timer.close()
  }
}
