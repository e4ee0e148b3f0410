/**
 * Benchmark 2 (and its line of benchmark 5): peak resident memory of the service process while 32
 * clients upload a 10 MB PNG at the same moment, and what it keeps once the load stops. The
 * service is the real one (`bun src/main.ts`, embedded database) calling an instant fake model;
 * memory is read from `/proc/<pid>/status` (VmHWM, the kernel's own peak, reset just before the
 * load; and VmRSS sampled every 10 ms). Three rounds, to show whether the peak grows. Then
 * diagnostic loads, to see where the peak comes from: uploads refused before any decoding, many
 * tiny requests (the database path), and, on the baseline's process, Bun holding unread bodies.
 *
 *   bun scripts/bench/memory.ts [--quick]
 */
import { startFakeOpenAi } from "./lib/fakeOpenAi.ts"
import { png10mb } from "./lib/images.ts"
import { post, type Sample, sleep, type Upload, uploadOf } from "./lib/load.ts"
import { memoryOf, resetPeak, sampleRss } from "./lib/rss.ts"
import { footer, header, quick, verdict } from "./lib/report.ts"
import { bytes, mib, ms, ratio, statusSummary, table } from "./lib/stats.ts"
import { deadline, startTarget, type TargetName, targetNames } from "./lib/targets.ts"

deadline(10 * 60_000, "memory bench")

const clients = 32
const rounds = quick ? 1 : 3
/** Resident size read this long after the load stopped. */
const afterMs = [1_000, 5_000, 10_000] as const
const finalAfterMs = 10_000

interface Round {
  readonly peakBytes: number
  readonly wallMs: number
  readonly statuses: ReadonlyArray<number>
  readonly after: ReadonlyArray<number>
}

interface Figures {
  readonly startBytes: number
  readonly idleBytes: number
  readonly rounds: ReadonlyArray<Round>
  readonly peakResetWorked: boolean
  readonly checks: ReadonlyArray<Check>
}

/** A diagnostic load after the rounds: what part of the peak comes from where. */
interface Check {
  readonly label: string
  readonly beforeBytes: number
  readonly peakBytes: number
  readonly afterBytes: number
  readonly statuses: ReadonlyArray<number>
}

const text = (n: number) => new Uint8Array(n).fill(0x61)

/** Loads that isolate parts of the peak; `path` defaults to the describe route. */
interface CheckLoad {
  readonly label: string
  readonly count: number
  readonly upload: Upload
  readonly path?: string
  /** Only the first `windowMs` count for the peak (the hold, before the handler reads). */
  readonly windowMs?: number
}

/**
 * Bun alone, on the baseline's fresh process (before any other request): a handler that leaves
 * 32 bodies of 10 MB unread for 3 s. The peak of the first 2.5 s is what Bun buffers by itself.
 */
const holdCheck: CheckLoad = {
  label: `${clients} x 10 MB to a handler that leaves the body unread for 3 s (Bun alone; peak of the first 2.5 s)`,
  count: clients,
  upload: uploadOf(text(10_000_000)),
  path: "/hold",
  windowMs: 2_500
}

const checksFor = (name: TargetName): ReadonlyArray<CheckLoad> =>
  name === "baseline"
    ? []
    : [
      { label: `${clients} x 10 MB of text as the image (refused at the image check: upload path only)`, count: clients, upload: uploadOf(text(10_000_000)) },
      { label: "320 x 10 bytes of text as the image (key, credit, form: no upload, no image)", count: 320, upload: uploadOf(text(10)) }
    ]

const runCheck = async (
  pid: number,
  check: CheckLoad,
  send: (upload: Upload, path: string | undefined) => Promise<Sample>
): Promise<Check> => {
  const beforeBytes = memoryOf(pid).rssBytes
  const reset = resetPeak(pid)
  const sampler = sampleRss(pid)
  const all = Promise.all(Array.from({ length: check.count }, () => send(check.upload, check.path)))
  let peakBytes: number
  if (check.windowMs === undefined) {
    await all
    const sampled = sampler.stop()
    peakBytes = reset ? Math.max(sampled, memoryOf(pid).hwmBytes) : sampled
  } else {
    await sleep(check.windowMs)
    peakBytes = sampler.stop()
  }
  const samples = await all
  await sleep(2_000)
  return { label: check.label, beforeBytes, peakBytes, afterBytes: memoryOf(pid).rssBytes, statuses: samples.map((s) => s.status) }
}

header("Benchmark 2: peak memory (RSS) under 32 concurrent 10 MB uploads", `bun scripts/bench/memory.ts${quick ? " --quick" : ""}`)

const image = await png10mb()
const upload = uploadOf(image.bytes)
console.log(`upload: ${image.label}, ${image.width} x ${image.height}, ${bytes(image.bytes.length)} B image, ${bytes(upload.body.length)} B body; ${clients} clients at once, ${rounds} round(s)\n`)

const model = startFakeOpenAi()
const results = new Map<TargetName, Figures>()

for (const name of targetNames) {
  const target = await startTarget(name, model.baseUrl)
  try {
    const startBytes = memoryOf(target.pid).rssBytes
    const checks: Array<Check> = []
    if (name === "baseline") checks.push(await runCheck(target.pid, holdCheck, (upload, path) => post(target, upload, path)))
    // Two requests first, so lazily loaded code (sharp, the model client) counts as idle memory.
    for (let i = 0; i < 2; i++) await post(target, upload)
    await sleep(1_000)
    const idleBytes = memoryOf(target.pid).rssBytes
    let peakResetWorked = true
    const done: Array<Round> = []
    for (let round = 0; round < rounds; round++) {
      peakResetWorked = resetPeak(target.pid) && peakResetWorked
      const sampler = sampleRss(target.pid)
      const began = performance.now()
      const samples = await Promise.all(Array.from({ length: clients }, () => post(target, upload)))
      const wallMs = performance.now() - began
      const sampled = sampler.stop()
      const hwm = memoryOf(target.pid).hwmBytes
      const after: Array<number> = []
      let waited = 0
      for (const at of afterMs) {
        await sleep(at - waited)
        waited = at
        after.push(memoryOf(target.pid).rssBytes)
      }
      done.push({
        peakBytes: peakResetWorked ? Math.max(hwm, sampled) : sampled,
        wallMs,
        statuses: samples.map((s) => s.status),
        after
      })
      console.error(`${name} round ${round + 1}: peak ${mib(done.at(-1)?.peakBytes ?? Number.NaN)}`)
    }
    for (const check of checksFor(name)) {
      await sleep(2_000)
      checks.push(await runCheck(target.pid, check, (upload, path) => post(target, upload, path)))
    }
    results.set(name, { startBytes, idleBytes, rounds: done, peakResetWorked, checks })
  } finally {
    await target.stop()
  }
}
await model.stop()

const peakOf = (f: Figures | undefined) => Math.max(...(f?.rounds ?? []).map((r) => r.peakBytes))
const lastAfter = (f: Figures | undefined, i: number) => f?.rounds.at(-1)?.after[i] ?? Number.NaN

for (const name of targetNames) {
  const f = results.get(name)
  console.log(`\n### ${name}\n`)
  console.log(`resident at start (ready, before any request): ${mib(f?.startBytes ?? Number.NaN)}; idle after 2 requests: ${mib(f?.idleBytes ?? Number.NaN)}`)
  if (f?.peakResetWorked === false) console.log("(VmHWM could not be reset: peaks are the 10 ms samples of VmRSS)")
  console.log()
  console.log(table(
    ["round", "peak RSS", "wall time", ...afterMs.map((at) => `RSS ${at / 1000} s after`), "statuses"],
    (f?.rounds ?? []).map((r, i) => [String(i + 1), mib(r.peakBytes), ms(r.wallMs), ...r.after.map(mib), statusSummary(r.statuses)])
  ))
}

console.log("\n### Where the peak comes from: diagnostic loads, one at a time (the service's after its rounds)\n")
console.log(table(
  ["server", "load", "RSS before", "peak", "peak - before", "RSS 2 s after", "statuses"],
  targetNames.flatMap((name) => (results.get(name)?.checks ?? []).map((c) => [name, c.label, mib(c.beforeBytes), mib(c.peakBytes),
    mib(c.peakBytes - c.beforeBytes), mib(c.afterBytes), statusSummary(c.statuses)]))
))

const baseline = results.get("baseline")
console.log("\n### Benchmark 5: service against the baseline (ratio = how many times less memory the service uses)\n")
console.log(table(
  ["server", "figure", "service", "baseline", "ratio (baseline / service)"],
  targetNames.filter((name) => name !== "baseline").flatMap((name) => {
    const service = results.get(name)
    const last = afterMs.length - 1
    return [
      [name, `peak RSS, ${clients} x 10 MB`, mib(peakOf(service)), mib(peakOf(baseline)), ratio(peakOf(baseline), peakOf(service))],
      [name, `RSS ${finalAfterMs / 1000} s after the load`, mib(lastAfter(service, last)), mib(lastAfter(baseline, last)), ratio(lastAfter(baseline, last), lastAfter(service, last))],
      [name, "RSS idle", mib(service?.idleBytes ?? Number.NaN), mib(baseline?.idleBytes ?? Number.NaN), ratio(baseline?.idleBytes ?? Number.NaN, service?.idleBytes ?? Number.NaN)]
    ]
  })
))
console.log()
const service = results.get("service")
verdict("peak RSS, 32 concurrent 10 MB uploads", `${mib(peakOf(service))} (${(peakOf(service) / 1e6).toFixed(0)} MB)`, "< 600 MB", peakOf(service) < 600e6)
const postgres = results.get("service-postgres")
if (postgres !== undefined) {
  verdict("peak RSS, 32 concurrent 10 MB uploads, service on PostgreSQL", `${mib(peakOf(postgres))} (${(peakOf(postgres) / 1e6).toFixed(0)} MB)`, "< 600 MB", peakOf(postgres) < 600e6)
}
footer()
