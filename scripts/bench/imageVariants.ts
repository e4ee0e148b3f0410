/**
 * The image pipeline's options, before and after (docs/BENCHMARKS.md, "Image pipeline"): each
 * variant is the sharp call of `Images.prepare` or of the model's JPEG with one option changed, run
 * alone on a bench input. Not one of the numbered figures.
 *
 *   bun scripts/bench/imageVariants.ts wall <kind> <variant,variant,...> [rounds]
 *     alternates the variants, one call each per round, and prints each one's p50 and minimum.
 *   valgrind --tool=callgrind bun scripts/bench/imageVariants.ts count <kind> <variant> <n> [file]
 *     runs one variant n times: instructions per call = (count at n - count at 0) / n.
 *   bun scripts/bench/imageVariants.ts save <kind> <file>
 *     writes the input to `file`, to be passed to `count`: generating the 12-MP JPEG under
 *     valgrind alone takes minutes.
 *
 * `kind`: jpeg12mp, png10mb or webpSmall. No decode timeout here (under valgrind a decode takes
 * far longer than `decodeTimeoutSeconds`), and no header checks in JavaScript (0.4 ms for the
 * 12-MP JPEG, measured apart).
 */
import sharp, { type SharpOptions } from "sharp"
import { jpeg12mp, png10mb, webpSmall } from "./lib/images.ts"
import { ms, percentile, table } from "./lib/stats.ts"

sharp.cache(false)
sharp.concurrency(1)

const [mode = "wall", kind = "jpeg12mp", names = "prepareBefore,prepareAfter", count = "15", file] = process.argv.slice(2)
const images = { jpeg12mp, png10mb, webpSmall } as const
const make = images[kind as keyof typeof images]
if (make === undefined) throw new Error(`unknown kind ${kind}`)
if (mode === "save") {
  await Bun.write(names, (await make()).bytes)
  process.exit(0)
}
const bytes = file === undefined ? (await make()).bytes : new Uint8Array(await Bun.file(file).arrayBuffer())

const input = { failOn: "warning", limitInputPixels: 100_000_000, pages: 1 } satisfies SharpOptions
const header = () => sharp(bytes, { ...input, limitInputPixels: false }).metadata()
const pipeline = (kernel: "lanczos3" | "linear") =>
  sharp(bytes, input)
    .autoOrient()
    .resize({ width: 1000, height: 1000, fit: "inside", withoutEnlargement: true, kernel })
    .toColourspace("srgb")
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })

const prepared = await pipeline("linear")
const modelJpeg = (optimiseCoding: boolean) =>
  sharp(prepared.data, { raw: { width: prepared.info.width, height: prepared.info.height, channels: 3 } })
    .jpeg({ quality: 80, optimiseCoding })
    .toBuffer()

const variants: Record<string, () => Promise<unknown>> = {
  nothing: async () => undefined,
  header,
  prepareBefore: () => header().then(() => pipeline("lanczos3")),
  prepareAfter: () => header().then(() => pipeline("linear")),
  jpegBefore: () => modelJpeg(true),
  jpegAfter: () => modelJpeg(false)
}
const chosen = names.split(",").map((name) => {
  const run = variants[name]
  if (run === undefined) throw new Error(`unknown variant ${name}: ${Object.keys(variants).join(", ")}`)
  return [name, run] as const
})

if (mode === "count") {
  for (let i = 0; i < Number(count); i++) for (const [, run] of chosen) await run()
} else {
  const samples = new Map(chosen.map(([name]) => [name, [] as Array<number>]))
  for (const [, run] of chosen) await run()
  for (let round = 0; round < Number(count); round++) {
    for (const [name, run] of chosen) {
      const started = performance.now()
      await run()
      samples.get(name)?.push(performance.now() - started)
    }
  }
  console.log(`${kind}, ${count} rounds alternated`)
  console.log(table(["variant", "p50", "min"], chosen.map(([name]) => {
    const times = samples.get(name) ?? []
    return [name, ms(percentile(times, 50)), ms(Math.min(...times))]
  })))
  if (chosen.some(([name]) => name.startsWith("jpeg"))) {
    console.log(`model JPEG bytes: optimised ${(await modelJpeg(true)).length}, standard tables ${(await modelJpeg(false)).length}`)
  }
}
