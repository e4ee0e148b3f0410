/**
 * Resident memory at rest: the service started, ready, and left alone for a few seconds, before
 * any request. On the embedded database twice on the same folder (the first start creates the
 * database; a later one opens it), and on PostgreSQL with `BENCH_DATABASE_URL` (a new database of
 * that server, made and migrated by the operator CLI first, as in the other benches).
 *
 *   bun scripts/bench/rest.ts [--quick]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startFakeOpenAi } from "./lib/fakeOpenAi.ts"
import { sleep } from "./lib/load.ts"
import { figure, footer, header, quick } from "./lib/report.ts"
import { memoryOf } from "./lib/rss.ts"
import { mib, ms, table } from "./lib/stats.ts"
import { deadline, startServiceOn, startServicePostgres, type Target, targetNames } from "./lib/targets.ts"

deadline(5 * 60_000, "rest bench")

/** Left alone this long after `/healthz` answers. */
const restMs = 3_000
const MB = 1_000_000

header("Resident memory at rest (ready, no request yet)", `bun scripts/bench/rest.ts${quick ? " --quick" : ""}`)

interface Rest {
  readonly label: string
  readonly startMs: number
  readonly rssBytes: number
  readonly peakBytes: number
  readonly targetMb: number
}

const model = startFakeOpenAi()
const atRest = async (label: string, targetMb: number, start: () => Promise<Target>): Promise<Rest> => {
  const began = performance.now()
  const target = await start()
  const startMs = performance.now() - began
  try {
    await sleep(restMs)
    const memory = memoryOf(target.pid)
    console.error(`${label}: ${mib(memory.rssBytes)}`)
    return { label, startMs, rssBytes: memory.rssBytes, peakBytes: memory.hwmBytes, targetMb }
  } finally {
    await target.stop()
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "image-metadata-bench-rest-"))
const dataDir = path.join(dir, "data")
const rows: Array<Rest> = []
try {
  rows.push(await atRest("PGlite, first start (empty folder)", 180, () => startServiceOn(model.baseUrl, dataDir)))
  rows.push(await atRest("PGlite, later start (same folder)", 150, () => startServiceOn(model.baseUrl, dataDir)))
  if (targetNames.includes("service-postgres")) rows.push(await atRest("PostgreSQL", 120, () => startServicePostgres(model.baseUrl)))
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
  await model.stop()
}

console.log(table(
  ["start", "start to ready", `RSS ${restMs / 1000} s after ready`, "MB", "peak RSS so far (VmHWM)"],
  rows.map((r) => [r.label, ms(r.startMs), mib(r.rssBytes), (r.rssBytes / MB).toFixed(0), mib(r.peakBytes)])
))
console.log()
for (const r of rows) {
  figure({ what: `RSS at rest, ${r.label}`, measured: `${(r.rssBytes / MB).toFixed(0)} MB`, target: `<= ${r.targetMb} MB`, pass: r.rssBytes <= r.targetMb * MB })
}
if (!targetNames.includes("service-postgres")) {
  figure({ what: "RSS at rest, PostgreSQL", measured: "not run (BENCH_DATABASE_URL unset)", target: "<= 120 MB", pass: undefined })
}
footer()
