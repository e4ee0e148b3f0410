/**
 * Where the time of one request goes: each step of the service and of the baseline, run alone
 * in this process (one at a time, no HTTP), for each input. Not one of docs/BENCHMARKS.md's numbered figures: it explains
 * the figures of `overhead.ts`. The service's steps are its own modules (from the code
 * `lib/source.ts` picks); the baseline's are the calls `baseline.ts` makes.
 *
 *   bun scripts/bench/stages.ts [--quick]
 */
import { Effect, Logger, LogLevel, Stream } from "effect"
import * as path from "node:path"
import sharp from "sharp"
import { djpegPath, djpegVersion, type Scale, scaleFor, timeDjpeg } from "./lib/djpeg.ts"
import { startFakeOpenAi } from "./lib/fakeOpenAi.ts"
import { allImages } from "./lib/images.ts"
import { uploadOf } from "./lib/load.ts"
import { parseFormWithinBodyLimit } from "./lib/formReader.ts"
import { figure, footer, header, quick } from "./lib/report.ts"
import { ms, percentile, ratio, table } from "./lib/stats.ts"
import { source } from "./lib/source.ts"
import { deadline } from "./lib/targets.ts"

deadline(10 * 60_000, "stages bench")

header("Where the time goes: each step alone, one at a time (p50)", `bun scripts/bench/stages.ts${quick ? " --quick" : ""}`)

const model = startFakeOpenAi()
process.env["OPENAI_BASE_URL"] = model.baseUrl

const load = (file: string) => import(path.join(source.root, file))
type ModelConfigModule = typeof import("../../src/config/ModelConfig.ts")
const ImagesModule: typeof import("../../src/services/Images.ts") = await load("src/services/Images.ts")
const OpenAi: typeof import("../../src/services/OpenAiDescriber.ts") = await load("src/services/OpenAiDescriber.ts")
const domain: typeof import("../../src/domain/describe.ts") = await load("src/domain/describe.ts")

const prepare = await Effect.runPromise(
  Effect.map(ImagesModule.Images, (images) => images.prepare).pipe(Effect.provide(ImagesModule.Images.layer))
)
// The model's settings: `config/ModelConfig.ts` since the settings were gathered in `src/config`,
// re-exported by OpenAiDescriber.ts before.
const legacy = OpenAi as { readonly config?: ModelConfigModule["ModelConfig"]["config"] }
const modelSettings = legacy.config ?? ((await load("src/config/ModelConfig.ts")) as ModelConfigModule).ModelConfig.config
const describer = OpenAi.make(Effect.runSync(modelSettings))

const repeats = quick ? 5 : 20
const timed = async (run: () => Promise<unknown>): Promise<number> => {
  await run()
  const samples: Array<number> = []
  for (let i = 0; i < repeats; i++) {
    const started = performance.now()
    await run()
    samples.push(performance.now() - started)
  }
  return percentile(samples, 50)
}

const chunksOf = (body: Uint8Array, size: number): ReadonlyArray<Uint8Array> => {
  const chunks: Array<Uint8Array> = []
  for (let at = 0; at < body.length; at += size) chunks.push(body.subarray(at, at + size))
  return chunks
}

const rows: Array<ReadonlyArray<string>> = []
const prepared12mp: Array<number> = []
for (const image of await allImages()) {
  const upload = uploadOf(image.bytes)
  const chunks = chunksOf(upload.body, 64 * 1024)
  // A copy of the pixels: the scope releases the prepared ones as it closes.
  const prepared = await Effect.runPromise(Effect.scoped(Effect.map(prepare(image.bytes, "bench"), (p) => ({ ...p, pixels: new Uint8Array(p.pixels) }))))
  const describeRequest = { image: prepared, fields: domain.defaultFields, keywords: "", context: "", language: "en" }

  // The service's steps.
  const form = await timed(() =>
    Effect.runPromise(parseFormWithinBodyLimit({ contentType: upload.contentType, body: Stream.fromIterable(chunks) }))
  )
  const prep = await timed(() => Effect.runPromise(Effect.scoped(prepare(image.bytes, "bench"))))
  if (image.kind === "jpeg12mp") prepared12mp.push(prep)
  const model_ = await timed(() => Effect.runPromise(Effect.flatten(describer.start(describeRequest)).pipe(Logger.withMinimumLogLevel(LogLevel.None))))

  // The baseline's steps.
  const formData = await timed(async () => {
    const data = await new Request("http://bench/", { method: "POST", headers: { "content-type": upload.contentType }, body: upload.body }).formData()
    const file = data.get("image")
    if (file instanceof Blob) await file.arrayBuffer()
  })
  const full = await sharp(image.bytes).rotate().raw().toBuffer({ resolveWithObject: true })
  const decode = await timed(() => sharp(image.bytes).rotate().raw().toBuffer())
  const resize = await timed(() =>
    sharp(full.data, { raw: { width: full.info.width, height: full.info.height, channels: full.info.channels === 4 ? 4 : 3 } })
      .resize({ width: 1000, height: 1000, fit: "inside", withoutEnlargement: true })
      .raw()
      .toBuffer()
  )
  // The least decoding libvips can do for this file: the deepest shrink-on-load (JPEG 1/8, WebP
  // any scale; PNG has none, so this is its full decode).
  const floor = await timed(() => sharp(image.bytes).resize({ width: Math.max(1, Math.floor(image.width / 8)) }).raw().toBuffer())
  rows.push([image.label, ms(form), ms(prep), ms(model_), ms(form + prep + model_), ms(formData), ms(decode), ms(resize),
    ms(formData + decode + resize + model_), ms(floor)])
  console.error(`${image.label} done`)
}
await model.stop()

console.log(table(
  ["image", "service: form (64 KiB chunks)", "service: Images.prepare", "both: describer (JPEG + fake call)", "service: sum",
    "baseline: formData()", "baseline: full decode", "baseline: resize", "baseline: sum", "decode floor (1/8 scale)"],
  rows
))
console.log("\nNot included: HTTP and the upload itself (see the transport floor of overhead.ts), the service's key check, credit reservation and settlement (see its fixed-cost rows).")

// The same JPEG decoded by libjpeg-turbo's own djpeg: whether the decode floor above is the
// bundled libvips or the entropy decoding itself; and the floor of `Images.prepare`'s figure.
const jpeg = (await allImages()).find((image) => image.kind === "jpeg12mp")
console.log("\n### Reference decoder: libjpeg-turbo's djpeg on the 12-MP JPEG (p50 wall time of the process)\n")
const scales: ReadonlyArray<Scale> = ["1/1", "1/2", "1/4", "1/8"]
const decoded = jpeg === undefined ? undefined : await timeDjpeg(jpeg.bytes, scales, repeats)
if (decoded === undefined || jpeg === undefined) {
  console.log("djpeg is not installed here (Debian: apt-get install libjpeg-turbo-progs); skipped.")
} else {
  console.log(table(["decoder", ...scales.map((scale) => `scale ${scale}`)], [[`${djpegPath} (${djpegVersion()})`, ...decoded.map(ms)]]))
}
console.log()
// The scale the service's shrink-on-load decodes the 12-MP JPEG at (1,000 px: 1/2, `scaleFor`).
const used = jpeg === undefined ? "1/2" : scaleFor(jpeg.width, jpeg.height, 1000)
const floor = decoded?.[scales.indexOf(used)] ?? Number.NaN
const prepared = prepared12mp[0] ?? Number.NaN
figure({
  what: "Images.prepare / djpeg at the same scale, 12-MP JPEG",
  measured: ms(prepared),
  reference: `${ms(floor)} (djpeg -scale ${used})`,
  ratio: ratio(prepared, floor),
  target: "<= 1.10x",
  pass: Number.isFinite(floor) ? prepared / floor <= 1.1 : undefined
})
footer()
