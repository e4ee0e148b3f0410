/**
 * Benchmarks 1 and 5 (latency, throughput): the time the service adds to a request when the model
 * answers at once. The real service runs as a child process (`bun src/main.ts`, embedded database)
 * and calls a fake OpenAI endpoint in this process that answers instantly, so what is measured is
 * the service: upload, form reading, key and credit checks, image preparation, the JPEG for the
 * model and its HTTP call, the answer. The baseline (`baseline.ts`) runs in the same harness.
 *
 * Also measured, to show where the time goes: the fixed cost of a request without image work
 * (a key check alone; a describe whose "image" is 10 bytes of text, refused at the image check;
 * the same with 5 MB of text), and the transport floor (the same uploads to a handler that only
 * reads the body, in a server on the service's runtime settings).
 *
 * The servers run side by side. Each is first brought to a steady state (`warmUp`: 1,500 small
 * requests, 300 with `--quick`); then, image by image, each server's requests in sequence (3 more
 * of the kind first, not counted), the transport floor's, and the 16-client runs, these in turns
 * (`inTurns`), after a run of 16 on each server not counted.
 *
 *   bun scripts/bench/overhead.ts [--quick]
 */
import { startFakeOpenAi } from "./lib/fakeOpenAi.ts"
import { allImages, type BenchImage, type ImageKind } from "./lib/images.ts"
import { post, type Run, runClients, type Sample, type Upload, uploadOf, warmUp } from "./lib/load.ts"
import { djpegTimer, djpegVersion, scaleFor } from "./lib/djpeg.ts"
import { figure, footer, header, quick } from "./lib/report.ts"
import { bytes, mean, ms, percentile, ratio, statusSummary, table } from "./lib/stats.ts"
import { deadline, startBaseline, startTarget, type Target, type TargetName, targetNames } from "./lib/targets.ts"
import { cpuBetween, cpuPerRequest, threadCpuOf } from "./lib/threadCpu.ts"

deadline(quick ? 8 * 60_000 : 25 * 60_000, "overhead bench")

const clients = 16
/** Sequential requests per image, and requests of each of the `rounds` 16-client runs, per image. */
const counts: Record<ImageKind, { readonly sequential: number; readonly concurrent: number }> = quick
  ? { jpeg12mp: { sequential: 10, concurrent: 32 }, png10mb: { sequential: 10, concurrent: 32 }, webpSmall: { sequential: 20, concurrent: 64 }, gifAnimated: { sequential: 20, concurrent: 64 } }
  : { jpeg12mp: { sequential: 60, concurrent: 96 }, png10mb: { sequential: 40, concurrent: 64 }, webpSmall: { sequential: 200, concurrent: 320 }, gifAnimated: { sequential: 200, concurrent: 320 } }
const rounds = quick ? 2 : 3
const fixedCount = quick ? 20 : 100
/** No new request starts after this long in one run of `runClients` (a block in sequence, a 16-client round). */
const phaseMs = 120_000
const warmUpPerPhase = 3

interface Figures {
  readonly sequential: ReadonlyArray<Sample>
  readonly concurrent: Run
  /** CPU per request of the concurrent run, by thread group of the server's process. */
  readonly cpu: ReadonlyArray<readonly [string, number]>
}

header("Benchmark 1: service overhead per request, instant fake model", `bun scripts/bench/overhead.ts${quick ? " --quick" : ""}`)

const images = await allImages()
const text = (n: number) => new Uint8Array(n).fill(0x61)
const fixedUploads = [
  { label: "describe, 10-byte non-image", upload: uploadOf(text(10)) },
  { label: "describe, 5 MB non-image", upload: uploadOf(text(5_000_000)) }
] as const

const model = startFakeOpenAi()
const results = new Map<TargetName, Map<ImageKind, Figures>>()
const fixed = new Map<TargetName, Map<string, ReadonlyArray<Sample>>>()
const floor = new Map<ImageKind, ReadonlyArray<Sample>>()

// The floor of a 12-MP request: libjpeg-turbo's djpeg at the scale the service decodes at, a block
// of decodes after each block of each service's requests (`sequence` below).
const jpeg = images.find((image) => image.kind === "jpeg12mp")
const scale = jpeg === undefined ? "1/2" : scaleFor(jpeg.width, jpeg.height, 1000)
const djpeg = jpeg === undefined ? undefined : await djpegTimer(jpeg.bytes)
const djpegBeside = new Map<TargetName, ReadonlyArray<number>>()

const getTokens = async (target: Target): Promise<Sample> => {
  const started = performance.now()
  const response = await fetch(`${target.url}/api/tokens`, { headers: { authorization: target.authorization } })
  await response.arrayBuffer()
  return { status: response.status, ms: performance.now() - started }
}

/**
 * Each key's turn once a round, the order rotated a place each round so that none always runs
 * after the same one. The servers' 16-client runs are taken in turns rather than one server after
 * the other, so that a throughput and the baseline's it is compared with are measured on the
 * machine as it was then: this machine's speed drifted by a fifth from one server's phase to the
 * next, minutes apart (docs/BENCHMARKS.md, "2026-11-27 evening"), and its throughput ratios with
 * it (small WebP 1.20x the baseline one after the other, 1.5x to 1.7x in turns). Requests in
 * sequence are not taken in turns: between two blocks of one server the others' ran for seconds,
 * longer than the servers keep freed memory (`runtimeEnv`), so each block would start by faulting
 * it in again (the transport floor's p50 was 7.4 ms in blocks of ten, 4.8 ms back to back in the
 * next run; 2.9 ms in the last full run).
 */
const inTurns = async <K>(keys: ReadonlyArray<K>, rounds: number, each: (key: K) => Promise<void>) => {
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < keys.length; i++) await each(keys[(round + i) % keys.length]!)
  }
}

/** Requests between two blocks of the floor's decodes. */
const block = 10

/**
 * `n` requests, one at a time, after `warmUpPerPhase` not counted; `afterBlock` runs after each
 * `block` of them (the floor's decodes: in blocks, not one after each request, because a decode in
 * between cost the service's next request 2.7 ms, p50 of 60, scratch).
 */
const sequence = async (n: number, send: () => Promise<Sample>, afterBlock: () => Promise<void> = async () => {}) => {
  for (let i = 0; i < warmUpPerPhase; i++) await send()
  const samples: Array<Sample> = []
  while (samples.length < n) {
    samples.push(...(await runClients(1, Math.min(block, n - samples.length), phaseMs, send)).samples)
    await afterBlock()
  }
  return samples
}

/**
 * `rounds` runs of `n` requests from `clients` clients against each target, in turns, after one
 * run of `clients` requests not counted: the first 16-client run on a server opens the fifteen
 * connections more that the clients keep, and takes its memory to 16 requests in flight, which no
 * measured round should pay for. The rounds' samples, wall times and CPU are added up.
 */
const concurrently = async (targets: ReadonlyArray<Target>, upload: Upload, n: number) => {
  const send = (target: Target) => () => post(target, upload)
  for (const target of targets) await runClients(clients, clients, phaseMs, send(target))
  const totals = new Map(targets.map((target) => [target.name, { samples: [] as Array<Sample>, wallMs: 0, cut: false, cpu: new Map<string, number>() }]))
  await inTurns(targets, rounds, async (target) => {
    const total = totals.get(target.name)!
    const before = threadCpuOf(target.pid)
    const run = await runClients(clients, n, phaseMs, send(target))
    for (const [group, ms] of cpuBetween(before, threadCpuOf(target.pid))) total.cpu.set(group, (total.cpu.get(group) ?? 0) + ms)
    total.samples.push(...run.samples)
    total.wallMs += run.wallMs
    total.cut ||= run.cut
  })
  return new Map([...totals].map(([name, { cpu, ...run }]) => [name, { run: run satisfies Run, cpu: cpuPerRequest(cpu, run.samples.length) }]))
}

const targets: Array<Target> = []
// The transport floor: the same uploads to a handler that only reads the body (the baseline's
// `/null`), in a server on the service's runtime settings. On Bun's defaults, as the baseline runs,
// its allocator's page faults came with it: p50 3.4 ms, p75 17 ms, and a p50 of 17.2 ms in one run.
let floorServer: Target | undefined
try {
  for (const name of targetNames) targets.push(await startTarget(name, model.baseUrl))
  floorServer = await startBaseline(model.baseUrl, "service")
  for (const target of targets) await warmUp(target, quick)

  for (const target of targets) {
    const costs = new Map<string, ReadonlyArray<Sample>>()
    if (target.name !== "baseline") costs.set("GET /api/tokens (key check)", await sequence(fixedCount, () => getTokens(target)))
    for (const { label, upload } of fixedUploads) costs.set(label, await sequence(fixedCount, () => post(target, upload)))
    fixed.set(target.name, costs)
  }

  for (const image of images) {
    const upload = uploadOf(image.bytes)
    const sequential = new Map<TargetName, ReadonlyArray<Sample>>()
    for (const target of targets) {
      const decodes: Array<number> = []
      const timesFloor = image.kind === "jpeg12mp" && target.name !== "baseline" && djpeg !== undefined
      const decodeBlock = async () => {
        for (let i = 0; timesFloor && i < block; i++) decodes.push(await djpeg.decode(scale))
      }
      sequential.set(target.name, await sequence(counts[image.kind].sequential, () => post(target, upload), decodeBlock))
      if (timesFloor) djpegBeside.set(target.name, decodes)
    }
    floor.set(image.kind, await sequence(counts[image.kind].sequential, () => post(floorServer!, upload, "/null")))
    const concurrent = await concurrently(targets, upload, counts[image.kind].concurrent)
    for (const target of targets) {
      const byImage = results.get(target.name) ?? new Map<ImageKind, Figures>()
      const { run, cpu } = concurrent.get(target.name)!
      byImage.set(image.kind, { sequential: sequential.get(target.name) ?? [], concurrent: run, cpu })
      results.set(target.name, byImage)
    }
    console.error(`${image.label}: p50 ${targets.map((target) => `${target.name} ${ms(percentile((sequential.get(target.name) ?? []).map((s) => s.ms), 50))}`).join(", ")}`)
  }
} finally {
  // Each stopped whatever the others do: one that fails to stop leaves no other running.
  const stops = await Promise.allSettled([...targets, ...(floorServer === undefined ? [] : [floorServer])].map((server) => server.stop()))
  await Promise.allSettled([model.stop(), djpeg?.close()])
  for (const stop of stops) if (stop.status === "rejected") console.error(`a server did not stop: ${String(stop.reason)}`)
}

const latencies = (samples: ReadonlyArray<Sample>) => samples.filter((s) => s.status !== 0).map((s) => s.ms)
const figures = (name: TargetName, kind: ImageKind): Figures | undefined => results.get(name)?.get(kind)
const p = (samples: ReadonlyArray<Sample> | undefined, q: number) => percentile(latencies(samples ?? []), q)
const throughput = (run: Run | undefined) =>
  run === undefined ? Number.NaN : run.samples.filter((s) => s.status === 200).length / (run.wallMs / 1000)
const sizeOf = (image: BenchImage) => `${image.width} x ${image.height}, ${bytes(image.bytes.length)} B`

for (const name of targetNames) {
  console.log(`\n### ${name}: one client, requests in sequence\n`)
  console.log(table(
    ["image", "requests", "p50", "p99", "mean", "statuses"],
    images.map((image) => {
      const f = figures(name, image.kind)
      return [`${image.label} (${sizeOf(image)})`, String(f?.sequential.length ?? 0), ms(p(f?.sequential, 50)), ms(p(f?.sequential, 99)),
        ms(mean(latencies(f?.sequential ?? []))), statusSummary((f?.sequential ?? []).map((s) => s.status))]
    })
  ))
  console.log(`\n### ${name}: ${clients} concurrent clients\n`)
  console.log(table(
    ["image", "requests", "wall time", "throughput", "p50", "p99", "statuses"],
    images.map((image) => {
      const run = figures(name, image.kind)?.concurrent
      return [image.label, String(run?.samples.length ?? 0) + (run?.cut === true ? " (time bound hit)" : ""),
        ms(run?.wallMs ?? Number.NaN), `${throughput(run).toFixed(2)} req/s`, ms(p(run?.samples, 50)), ms(p(run?.samples, 99)),
        statusSummary((run?.samples ?? []).map((s) => s.status))]
    })
  ))
}

// Where the throughput goes: the servers' CPU per request, by thread. libvips' share is the
// decoder's and the encoder's work, the same in both servers; what the service adds is on its
// JavaScript thread (key, credits, form, model call, the embedded database).
console.log(`\n### CPU per request with ${clients} clients, by thread of the server's process (ms; /proc/<pid>/task/*/stat)\n`)
console.log(table(
  ["server", "image", "total", "by thread"],
  targetNames.flatMap((name) => images.map((image) => {
    const cpu = figures(name, image.kind)?.cpu ?? []
    return [name, image.label, ms(cpu.reduce((sum, [, v]) => sum + v, 0)), cpu.map(([group, v]) => `${group} ${v.toFixed(2)}`).join(", ")]
  }))
))

console.log("\n### Fixed costs: requests without image work (one client, in sequence)\n")
const fixedLabels = [...new Set(targetNames.flatMap((name) => [...(fixed.get(name)?.keys() ?? [])]))]
console.log(table(
  ["request", ...targetNames.flatMap((name) => [`${name} p50`, `${name} p99`]), "statuses"],
  fixedLabels.map((label) => [label,
    ...targetNames.flatMap((name) => [ms(p(fixed.get(name)?.get(label), 50)), ms(p(fixed.get(name)?.get(label), 99))]),
    targetNames.map((name) => `${name}: ${statusSummary((fixed.get(name)?.get(label) ?? []).map((s) => s.status)) || "n/a"}`).join("; ")])
))

console.log("\n### Transport floor: the same upload to a handler that only reads the body (loopback, one client; the baseline's `/null` on the service's runtime settings)\n")
console.log(table(
  ["image", "requests", "p50", "p99"],
  images.map((image) => [image.label, String(floor.get(image.kind)?.length ?? 0), ms(p(floor.get(image.kind), 50)), ms(p(floor.get(image.kind), 99))])
))

console.log("\n### Benchmark 5: service against the baseline (ratio = how many times better the service is)\n")
const services = targetNames.filter((name) => name !== "baseline")
console.log(table(
  ["server", "image", "p50 service / baseline", "p50 ratio", "p99 service / baseline", "p99 ratio", `throughput (${clients} clients) service / baseline`, "throughput ratio"],
  services.flatMap((name) => images.map((image) => {
    const s = figures(name, image.kind)
    const b = figures("baseline", image.kind)
    return [name, image.label,
      `${ms(p(s?.sequential, 50))} / ${ms(p(b?.sequential, 50))}`, ratio(p(b?.sequential, 50), p(s?.sequential, 50)),
      `${ms(p(s?.sequential, 99))} / ${ms(p(b?.sequential, 99))}`, ratio(p(b?.sequential, 99), p(s?.sequential, 99)),
      `${throughput(s?.concurrent).toFixed(2)} / ${throughput(b?.concurrent).toFixed(2)} req/s`, ratio(throughput(s?.concurrent), throughput(b?.concurrent))]
  }))
))
console.log()

// The issue's figures. The floor of a 12-MP request: djpeg in turns with the service's requests,
// plus the transport floor above, both measured in this run.
const transport = p(floor.get("jpeg12mp"), 50)
const djpegP50 = (name: TargetName) => {
  const decodes = djpegBeside.get(name) ?? []
  return decodes.length === 0 ? Number.NaN : percentile(decodes, 50)
}
console.log(`djpeg (${djpegVersion()}) -scale ${scale} on the 12-MP JPEG, ${block} after every ${block} 12-MP requests of each service, p50: ${
  services.map((name) => `${ms(djpegP50(name))} beside ${name}`).join(", ")}\n`)
for (const name of services) {
  const jpegP50 = p(figures(name, "jpeg12mp")?.sequential, 50)
  const jpegFloor = djpegP50(name) + transport
  figure({
    what: `${name}: 12-MP JPEG, whole request p50 / floor (djpeg ${scale} + transport)`,
    measured: ms(jpegP50),
    reference: `${ms(jpegFloor)} (${ms(djpegP50(name))} + ${ms(transport)})`,
    ratio: ratio(jpegP50, jpegFloor),
    target: "<= 1.15x",
    pass: Number.isFinite(jpegFloor) ? jpegP50 / jpegFloor <= 1.15 : undefined
  })
  for (const kind of ["webpSmall", "png10mb"] as const) {
    const label = images.find((image) => image.kind === kind)?.label ?? kind
    const service = throughput(figures(name, kind)?.concurrent)
    const baseline = throughput(figures("baseline", kind)?.concurrent)
    figure({
      what: `${name}: ${label}, throughput with ${clients} clients, service / baseline`,
      measured: `${service.toFixed(2)} req/s`,
      reference: `${baseline.toFixed(2)} req/s`,
      ratio: ratio(service, baseline),
      target: ">= 1.3x",
      pass: service / baseline >= 1.3
    })
  }
}
// The fixed cost of a describe (key, reservation, settlement, usage row): a describe refused at
// the image check (spec §4.1, check 6) does all of them and no image work.
for (const name of ["service", "service-postgres"] as const) {
  const fixedP50 = p(fixed.get(name)?.get(fixedUploads[0].label), 50)
  figure({
    what: `${name === "service" ? "PGlite" : "PostgreSQL"}: fixed cost of a describe (${fixedUploads[0].label}), p50`,
    // Two decimals: beside a target of 1.5 ms, a p50 of 1.53 printed as "1.5 ms" read as a pass.
    measured: targetNames.includes(name) ? `${fixedP50.toFixed(2)} ms` : "not run (BENCH_DATABASE_URL unset)",
    reference: `baseline ${ms(p(fixed.get("baseline")?.get(fixedUploads[0].label), 50))}`,
    target: "<= 1.5 ms",
    pass: targetNames.includes(name) ? fixedP50 <= 1.5 : undefined
  })
}
footer()
