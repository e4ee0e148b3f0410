/**
 * Benchmark 4 (and its line of benchmark 5): the bytes sent to the model per image, for each input
 * kind. The real service calls the bench's fake OpenAI endpoint, which records each request: the
 * whole JSON body, the image's data URL, and the image it carries (decoded, measured with sharp).
 *
 *   bun scripts/bench/modelBytes.ts [--quick]
 */
import sharp from "sharp"
import { startFakeOpenAi } from "./lib/fakeOpenAi.ts"
import { allImages, type BenchImage, gifAnimated } from "./lib/images.ts"
import { post, uploadOf } from "./lib/load.ts"
import { footer, header, quick } from "./lib/report.ts"
import { bytes, ratio, table } from "./lib/stats.ts"
import { deadline, startTarget, type TargetName, targetNames } from "./lib/targets.ts"

deadline(10 * 60_000, "model bytes bench")

interface Figures {
  readonly image: BenchImage
  readonly status: number
  readonly requestBytes: number
  readonly dataUrlBytes: number
  readonly imageBytes: number
  readonly sentType: string
  readonly sentWidth: number
  readonly sentHeight: number
}

header("Benchmark 4: bytes sent to the model per image", `bun scripts/bench/modelBytes.ts${quick ? " --quick" : ""}`)

const images = [...(await allImages()), await gifAnimated()]
const model = startFakeOpenAi({ keepImages: true })
const results = new Map<TargetName, ReadonlyArray<Figures>>()

for (const name of targetNames) {
  const target = await startTarget(name, model.baseUrl)
  const figures: Array<Figures> = []
  try {
    for (const image of images) {
      model.clear()
      const sample = await post(target, uploadOf(image.bytes))
      const call = model.calls[0]
      const meta = call?.image === undefined ? undefined : await sharp(call.image).metadata()
      figures.push({
        image,
        status: sample.status,
        requestBytes: call?.requestBytes ?? Number.NaN,
        dataUrlBytes: call?.dataUrlBytes ?? Number.NaN,
        imageBytes: call?.imageBytes ?? Number.NaN,
        sentType: call?.imageType ?? "none",
        sentWidth: meta?.width ?? Number.NaN,
        sentHeight: meta?.height ?? Number.NaN
      })
    }
  } finally {
    await target.stop()
  }
  results.set(name, figures)
}
await model.stop()

for (const name of targetNames) {
  console.log(`\n### ${name}\n`)
  console.log(table(
    ["input", "uploaded", "status", "image sent", "image bytes", "data URL (base64)", "whole request body", "upload / request"],
    (results.get(name) ?? []).map((f) => [
      `${f.image.label}, ${f.image.width} x ${f.image.height}`, `${bytes(f.image.bytes.length)} B`, String(f.status),
      `${f.sentType}, ${f.sentWidth} x ${f.sentHeight}`, `${bytes(f.imageBytes)} B`, `${bytes(f.dataUrlBytes)} B`,
      `${bytes(f.requestBytes)} B`, ratio(f.image.bytes.length, f.requestBytes)
    ])
  ))
}

console.log("\n### Benchmark 5: service against the baseline (request bytes, baseline / service)\n")
const service = results.get("service") ?? []
const baseline = results.get("baseline") ?? []
console.log(table(
  ["input", "service", "baseline", "ratio"],
  service.map((s, i) => {
    const b = baseline[i]
    return [s.image.label, `${bytes(s.requestBytes)} B`, `${bytes(b?.requestBytes ?? Number.NaN)} B`, ratio(b?.requestBytes ?? Number.NaN, s.requestBytes)]
  })
))
console.log("\nBoth send the same adapter's JPEG (quality 80, longest side 1,000 px): only the resize path differs.")
footer()
