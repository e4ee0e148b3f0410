/**
 * Batches (README, "Batches"): one batch of 1,000 items by URL (a small WebP from a loopback image
 * server, an instant fake model), run by the service's batch workers, on one process and on two
 * processes sharing PostgreSQL. Measured: items per second, from the batch's `createdAt` to its
 * `completedAt` (the service's own clock), and each process's peak resident memory (VmHWM, reset
 * before the batch). One account, so `BATCH_ACCOUNT_CONCURRENCY` is raised past the workers: the
 * workers are what is measured, not the per-account bound.
 *
 *   bun scripts/bench/batch.ts [--quick]
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun scripts/bench/batch.ts
 *                                      # also one and two processes on PostgreSQL
 */
import { startFakeOpenAi } from "./lib/fakeOpenAi.ts"
import { webpSmall } from "./lib/images.ts"
import { sleep } from "./lib/load.ts"
import { memoryOf, resetPeak } from "./lib/rss.ts"
import { footer, header, quick } from "./lib/report.ts"
import { mib, table } from "./lib/stats.ts"
import { deadline, startService, startServiceReplicas, type Target } from "./lib/targets.ts"

deadline(quick ? 8 * 60_000 : 20 * 60_000, "batch bench")

const items = quick ? 200 : 1000
const workers = 4
const settings = { IMAGE_URL_ALLOW: "127.0.0.1", BATCH_WORKERS: String(workers), BATCH_ACCOUNT_CONCURRENCY: "64", BATCH_POLL_MS: "100" }

header(`A batch of ${items} images by URL: items per second and peak memory, on one process and on two`, `bun scripts/bench/batch.ts${quick ? " --quick" : ""}`)

const image = await webpSmall()
const images = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(image.bytes, { headers: { "content-type": image.mime } }) })
const model = startFakeOpenAi()

interface Figures {
  readonly label: string
  readonly seconds: number
  readonly succeeded: number
  readonly peaks: ReadonlyArray<number>
}

const run = async (label: string, targets: ReadonlyArray<Target>): Promise<Figures> => {
  const [first] = targets
  if (first === undefined) throw new Error("no target")
  for (const target of targets) resetPeak(target.pid)
  const headers = { authorization: first.authorization, "content-type": "application/json" }
  const body = JSON.stringify({ items: Array.from({ length: items }, (_, i) => ({ imageUrl: `http://127.0.0.1:${images.port}/photo/${i}.webp` })) })
  const created = await fetch(`${first.url}/api/batches`, { method: "POST", headers, body })
  if (created.status !== 202) throw new Error(`POST /api/batches answered ${created.status}: ${await created.text()}`)
  const { id } = (await created.json()) as { id: string }
  for (;;) {
    await sleep(100)
    const batch = (await (await fetch(`${first.url}/api/batches/${id}`, { headers })).json()) as {
      createdAt: string
      completedAt: string | null
      counts: { succeeded: number }
    }
    if (batch.completedAt !== null) {
      const seconds = (Date.parse(batch.completedAt) - Date.parse(batch.createdAt)) / 1000
      return { label, seconds, succeeded: batch.counts.succeeded, peaks: targets.map((target) => memoryOf(target.pid).hwmBytes) }
    }
  }
}

const results: Array<Figures> = []
try {
  const one = await startService(model.baseUrl, 1_000_000, settings)
  try {
    results.push(await run("1 process, embedded database", [one]))
  } finally {
    await one.stop()
  }
  if ((process.env["BENCH_DATABASE_URL"] ?? "") !== "") {
    for (const count of [1, 2]) {
      const replicas = await startServiceReplicas(model.baseUrl, count, settings)
      try {
        results.push(await run(`${count} process${count === 1 ? "" : "es"}, PostgreSQL`, replicas))
      } finally {
        await replicas[0]?.stop()
      }
    }
  } else {
    console.log("BENCH_DATABASE_URL is not set: two processes need PostgreSQL, only the embedded database is measured.\n")
  }
} finally {
  images.stop(true)
  await model.stop()
}

console.log(`${items} items, ${workers} batch workers per process, model answering at once, a ${image.label} (${image.bytes.length} bytes) per item.\n`)
console.log(table(
  ["service", "items/s", "batch time", "succeeded", "peak RSS per process"],
  results.map((r) => [r.label, (items / r.seconds).toFixed(1), `${r.seconds.toFixed(1)} s`, String(r.succeeded), r.peaks.map(mib).join(", ")])
))
footer()
