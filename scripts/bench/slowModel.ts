/**
 * Memory while requests wait on a model that takes seconds, as real ones do (not one of the
 * numbered figures of docs/BENCHMARKS.md; it completes figure 2, whose model answers at once). 64 clients post the 12-MP JPEG at
 * the same moment to a server whose model answers each call after 5 s, twice: the peak resident
 * memory of each wave, and what is left 3 s after it. The uploads themselves are bounded by the
 * upload budget; what waits on the model is what the describer kept of each request.
 *
 * Then the figure: 1,000 requests at once (a small WebP each) waiting on a model that
 * answers after 10 s, on the service alone (and on PostgreSQL with `BENCH_DATABASE_URL`): every
 * answer a 200, the peak resident memory, and `/healthz` asked every 20 ms throughout. Asked every
 * 100 ms (until 2026-11-28), the slowest answer depended on whether a probe fell in the first
 * turns of the burst: 15 to 192 ms in five runs of one build.
 *
 *   bun scripts/bench/slowModel.ts [--quick]
 */
import { startFakeOpenAi } from "./lib/fakeOpenAi.ts"
import { probeUntilStopped } from "./lib/healthz.ts"
import { jpeg12mp, webpSmall } from "./lib/images.ts"
import { post, sleep, uploadOf } from "./lib/load.ts"
import { memoryOf, resetPeak, sampleRss } from "./lib/rss.ts"
import { figure, footer, header, quick } from "./lib/report.ts"
import { mib, ms, percentile, statusSummary, table } from "./lib/stats.ts"
import { deadline, startTarget, targetNames } from "./lib/targets.ts"

deadline(15 * 60_000, "slow model bench")

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

// 1,000 requests at once on a model that takes 10 s.
const many = 1_000
const manyDelayMs = 10_000
const probeEveryMs = 20
const small = await webpSmall()
const smallUpload = uploadOf(small.bytes)
const slowModel = startFakeOpenAi({ delayMs: manyDelayMs })
const manyRows: Array<ReadonlyArray<string>> = []
for (const name of targetNames.filter((name) => name !== "baseline")) {
  const target = await startTarget(name, slowModel.baseUrl)
  try {
    const idle = memoryOf(target.pid).rssBytes
    const reset = resetPeak(target.pid)
    const sampler = sampleRss(target.pid)
    const probes = probeUntilStopped(target.url, probeEveryMs, 5_000)
    await probes.ready
    const started = performance.now()
    const samples = await Promise.all(Array.from({ length: many }, () => post(target, smallUpload)))
    const wallMs = performance.now() - started
    const healthz = await probes.stop()
    const sampled = sampler.stop()
    const peak = reset ? Math.max(sampled, memoryOf(target.pid).hwmBytes) : sampled
    const statuses = samples.map((s) => s.status)
    const slowest = Math.max(...healthz.latencies)
    manyRows.push([name, mib(idle), mib(peak), ms(wallMs), statusSummary(statuses), `${healthz.latencies.length}/${healthz.probes}`,
      ms(percentile(healthz.latencies, 50)), ms(slowest), String(healthz.latencies.filter((latency) => latency >= 50).length)])
    const all200 = statuses.every((status) => status === 200)
    const answered = healthz.latencies.length === healthz.probes
    figure({
      what: `${name}: ${many} requests at once, model answering after ${manyDelayMs / 1000} s`,
      measured: `${all200 ? "all 200" : statusSummary(statuses)}; peak RSS ${(peak / 1e6).toFixed(0)} MB; /healthz max ${ms(slowest)} (${healthz.latencies.length}/${healthz.probes} answered)`,
      target: "all 200, peak RSS <= 800 MB, /healthz < 50 ms throughout",
      pass: all200 && peak <= 800e6 && answered && slowest < 50
    })
  } finally {
    await target.stop()
  }
}
await slowModel.stop()
console.log(`\n${many} x ${small.label} (${small.width} x ${small.height}) at once, model delay ${manyDelayMs} ms; /healthz every ${probeEveryMs} ms\n`)
console.log(table(["server", "idle RSS", "peak RSS", "all answered after", "statuses", "/healthz answered", "/healthz p50", "/healthz max", "/healthz answers >= 50 ms"], manyRows))
footer()
