/**
 * The work a request costs, counted rather than timed: instructions retired and CPU time of the
 * server process (every thread, kernel included), per request, read with `perf stat -p` while
 * one client sends the requests in sequence. Instruction counts hardly move with what else the
 * machine runs, where wall times on a shared guest drift by ±50% within an hour: this is the
 * figure to compare two commits or the two servers by. Needs Linux `perf` with hardware counters;
 * says so and stops otherwise.
 *
 *   bun scripts/bench/work.ts [--quick]
 */
import { startFakeOpenAi } from "./lib/fakeOpenAi.ts"
import { allImages } from "./lib/images.ts"
import { post, sleep, type Upload, uploadOf, warmUp } from "./lib/load.ts"
import { footer, header, quick } from "./lib/report.ts"
import { ms, percentile, ratio, statusSummary, table } from "./lib/stats.ts"
import { deadline, startTarget, type Target, type TargetName, targetNames } from "./lib/targets.ts"

deadline(quick ? 8 * 60_000 : 20 * 60_000, "work bench")

header("The work per request: instructions and CPU time of the server (perf stat)", `bun scripts/bench/work.ts${quick ? " --quick" : ""}`)

const probe = Bun.spawnSync({ cmd: ["perf", "stat", "-x", ",", "-e", "instructions", "true"], stdout: "pipe", stderr: "pipe" })
const probed = probe.success ? probe.stderr.toString() : ""
if (!/^\d+,/m.test(probed)) {
  console.log("perf with an instructions counter is not available here: nothing measured.")
  footer()
  process.exit(0)
}

interface Work {
  readonly instructions: number
  readonly cpuMs: number
  readonly p50: number
  readonly statuses: ReadonlyArray<number>
}

/** Counts the target's process while `count` requests of `upload` are answered one after another. */
const measure = async (target: Target, upload: Upload, count: number): Promise<Work> => {
  for (let i = 0; i < 5; i++) await post(target, upload)
  // Let the warm-up's garbage collection and the upload budget's quiet-spell collection pass.
  await sleep(1500)
  const perf = Bun.spawn({
    cmd: ["perf", "stat", "-x", ",", "-e", "instructions,task-clock", "-p", String(target.pid)],
    stdout: "ignore",
    stderr: "pipe"
  })
  await sleep(300)
  const samples = []
  for (let i = 0; i < count; i++) samples.push(await post(target, upload))
  perf.kill("SIGINT")
  await perf.exited
  const lines = (await new Response(perf.stderr).text()).split("\n")
  const counter = (event: string) => Number(lines.find((line) => line.split(",")[2]?.startsWith(event))?.split(",")[0])
  return {
    instructions: counter("instructions") / count,
    cpuMs: counter("task-clock") / count,
    p50: percentile(samples.map((sample) => sample.ms), 50),
    statuses: samples.map((sample) => sample.status)
  }
}

const inputs = [
  ...(await allImages()).map((image) => ({ label: image.label, upload: uploadOf(image.bytes), count: quick ? 8 : 30 })),
  { label: "10-byte non-image (fixed costs)", upload: uploadOf(new Uint8Array(10).fill(0x61)), count: quick ? 50 : 200 }
]

const model = startFakeOpenAi()
const results = new Map<TargetName, ReadonlyArray<Work>>()
for (const name of targetNames) {
  const target = await startTarget(name, model.baseUrl)
  try {
    await warmUp(target, quick)
    const works: Array<Work> = []
    for (const input of inputs) works.push(await measure(target, input.upload, input.count))
    results.set(name, works)
  } finally {
    await target.stop()
  }
  console.error(`${name} done`)
}
await model.stop()

const millions = (n: number) => (Number.isFinite(n) ? `${(n / 1e6).toFixed(1)} M` : "n/a")

console.log(table(
  ["server", "input", "requests", "instructions / request", "CPU / request", "p50 (for reference)", "statuses"],
  targetNames.flatMap((name) =>
    inputs.map((input, index) => {
      const work = results.get(name)?.[index]
      return [name, input.label, String(input.count), millions(work?.instructions ?? NaN), ms(work?.cpuMs ?? NaN),
        ms(work?.p50 ?? NaN), statusSummary(work?.statuses ?? [])]
    })
  )
))

console.log("\nAgainst the baseline (how many times less work the service does; the baseline has no database):\n")
console.log(table(
  ["server", "input", "instructions: baseline / server", "CPU time: baseline / server"],
  targetNames.filter((name) => name !== "baseline").flatMap((name) =>
    inputs.map((input, index) => {
      const work = results.get(name)?.[index]
      const base = results.get("baseline")?.[index]
      return [name, input.label, ratio(base?.instructions ?? NaN, work?.instructions ?? NaN), ratio(base?.cpuMs ?? NaN, work?.cpuMs ?? NaN)]
    })
  )
))
footer()
