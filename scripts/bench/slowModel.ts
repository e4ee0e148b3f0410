/**
 * Memory while requests wait on a model that takes seconds, as real ones do (not one of the
 * numbered figures of docs/BENCHMARKS.md; it completes figure 2, whose model answers at once). 64 clients post the 12-MP JPEG at
 * the same moment to a server whose model answers each call after 5 s, twice: the peak resident
 * memory of each wave, and what is left 3 s after it. The uploads themselves are bounded by the
 * upload budget; what waits on the model is what the describer kept of each request.
 *
 *   bun scripts/bench/slowModel.ts [--quick]
 */
import { startFakeOpenAi } from "./lib/fakeOpenAi.ts"
import { jpeg12mp } from "./lib/images.ts"
import { post, sleep, uploadOf } from "./lib/load.ts"
import { memoryOf, sampleRss } from "./lib/rss.ts"
import { footer, header, quick } from "./lib/report.ts"
import { mib, ms, statusSummary, table } from "./lib/stats.ts"
import { deadline, startTarget, targetNames } from "./lib/targets.ts"

deadline(10 * 60_000, "slow model bench")

const clients = quick ? 32 : 64
const waves = 2
const delayMs = 5_000
const settleMs = 3_000

header(`Memory while ${clients} requests wait on a model answering after ${delayMs / 1000} s`, `bun scripts/bench/slowModel.ts${quick ? " --quick" : ""}`)

const image = await jpeg12mp()
const upload = uploadOf(image.bytes)
const model = startFakeOpenAi({ delayMs })
const rows: Array<ReadonlyArray<string>> = []

for (const name of targetNames) {
  const target = await startTarget(name, model.baseUrl)
  try {
    const idle = memoryOf(target.pid).rssBytes
    for (let wave = 1; wave <= waves; wave++) {
      const before = memoryOf(target.pid).rssBytes
      const sampler = sampleRss(target.pid)
      const started = performance.now()
      const samples = await Promise.all(Array.from({ length: clients }, () => post(target, upload)))
      const wallMs = performance.now() - started
      const peak = sampler.stop()
      await sleep(settleMs)
      rows.push([name, String(wave), mib(idle), mib(before), mib(peak), mib(memoryOf(target.pid).rssBytes), ms(wallMs),
        statusSummary(samples.map((s) => s.status))])
    }
  } finally {
    await target.stop()
  }
  console.error(`${name} done`)
}
await model.stop()

console.log(`${clients} x ${image.label} (${image.width} x ${image.height}), model delay ${delayMs} ms, ${waves} waves\n`)
console.log(table(["server", "wave", "idle RSS", "RSS before", "peak RSS", `RSS ${settleMs / 1000} s after`, "wave time", "statuses"], rows))
footer()
