/**
 * The fixed cost of a describe (key check, credit reservation, settlement, usage row): a describe
 * whose "image" is 10 bytes of text, refused at the image check, so every statement of a request
 * runs and no image work does. Two builds are compared in one run, alternating batches of
 * requests between them, so a loaded machine slows both alike:
 *
 * - "before": the commit `--before <rev>` (default `HEAD`), extracted as `BENCH_REV` does;
 * - "after": the working tree (or `BENCH_SOURCE_DIR`).
 *
 * Besides p50/p99, what does not depend on load: the SQL statements each describe runs (its
 * `sql.execute` spans, exported to a collector in this process) and, with `BENCH_DATABASE_URL`,
 * the round trips the PostgreSQL backends answer (their `sendto` calls, counted with strace).
 *
 *   bun scripts/bench/fixedCost.ts [--before <rev>] [--rounds 20] [--batch 50]
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test bun scripts/bench/fixedCost.ts
 *
 * Internally it runs itself with `--serve <target>` once per build: that child starts the server
 * (lib/targets.ts picks the code from its environment), prints where it listens, and stops it
 * when its stdin closes.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { post, sleep, uploadOf } from "./lib/load.ts"
import { percentile, statusSummary, table } from "./lib/stats.ts"

const argument = (name: string, fallback: string) => {
  const at = process.argv.indexOf(name)
  return at >= 0 ? process.argv[at + 1] ?? fallback : fallback
}

interface Served {
  readonly url: string
  readonly authorization: string
  readonly pid: number
  /** The PostgreSQL database the service uses, if any. */
  readonly database: string | undefined
}

const serve = async (name: "service" | "service-postgres") => {
  const { startTarget } = await import("./lib/targets.ts")
  const { startFakeOpenAi } = await import("./lib/fakeOpenAi.ts")
  const model = startFakeOpenAi()
  const target = await startTarget(name, model.baseUrl)
  const database = name === "service-postgres" ? await databaseOf(target.pid) : undefined
  console.log(JSON.stringify({ url: target.url, authorization: target.authorization, pid: target.pid, database } satisfies Served))
  for await (const _ of process.stdin) { /* until the parent closes it */ }
  await target.stop()
  await model.stop()
  process.exit(0)
}

/** The database in the service's environment (`DATABASE_URL`), read from /proc. */
const databaseOf = async (pid: number): Promise<string | undefined> => {
  const environ = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")
  const url = environ.find((entry) => entry.startsWith("DATABASE_URL="))?.slice("DATABASE_URL=".length)
  return url === undefined ? undefined : new URL(url).pathname.slice(1)
}

if (process.argv[2] === "--serve") {
  await serve(process.argv[3] === "service-postgres" ? "service-postgres" : "service")
  process.exit(0)
}

const before = argument("--before", "HEAD")
const rounds = Number(argument("--rounds", "20"))
const batch = Number(argument("--batch", "50"))
const postgresUrl = process.env["BENCH_DATABASE_URL"]
const kinds = postgresUrl === undefined || postgresUrl === "" ? ["service"] as const : ["service", "service-postgres"] as const
const upload = uploadOf(new Uint8Array(10).fill(0x61))

/** Spans received, by trace: the collector of OTLP/HTTP JSON the counting servers export to. */
const spans = new Map<string, Array<string>>()
const collector = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: async (request) => {
    const body = (await request.json()) as {
      resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<{ traceId: string; name: string }> }> }>
    }
    for (const resource of body.resourceSpans ?? []) {
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) spans.set(span.traceId, [...(spans.get(span.traceId) ?? []), span.name])
      }
    }
    return new Response("{}", { headers: { "content-type": "application/json" } })
  }
})

interface Child {
  readonly served: Served
  readonly stop: () => Promise<void>
}

const start = async (kind: (typeof kinds)[number], env: Record<string, string>): Promise<Child> => {
  const child = Bun.spawn({
    cmd: [process.execPath, import.meta.path, "--serve", kind],
    env: { ...process.env, ...env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit"
  })
  const reader = child.stdout.getReader()
  let text = ""
  while (!text.includes("\n")) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`the ${kind} server did not start`)
    text += new TextDecoder().decode(value)
  }
  const served = JSON.parse(text.slice(0, text.indexOf("\n"))) as Served
  return {
    served,
    stop: async () => {
      await child.stdin.end()
      await child.exited
    }
  }
}

const builds = {
  before: { BENCH_REV: before, BENCH_SOURCE_DIR: "" },
  after: { BENCH_REV: "", BENCH_SOURCE_DIR: process.env["BENCH_SOURCE_DIR"] ?? "" }
} as const
type Build = keyof typeof builds

const send = (served: Served) => post({ name: "service", url: served.url, authorization: served.authorization, pid: served.pid, logFile: "", stop: async () => {} }, upload)

/** Statements per describe: `sql.execute` spans of the traces that are a describe. */
const countStatements = async (kind: (typeof kinds)[number], build: Build) => {
  const child = await start(kind, { ...builds[build], OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}` })
  try {
    for (let i = 0; i < 50; i++) await send(child.served)
    await sleep(2500)
    spans.clear()
    const n = 20
    for (let i = 0; i < n; i++) await send(child.served)
    // The exporter sends every 2 s.
    await sleep(4500)
    const describes = [...spans.values()].filter((names) => names.includes("POST /api/describe"))
    const count = (name: string) => describes.reduce((sum, names) => sum + names.filter((n) => n === name).length, 0) / describes.length
    return { describes: describes.length, statements: count("sql.execute"), transactions: count("sql.transaction") }
  } finally {
    await child.stop()
  }
}

/** Round trips per describe on PostgreSQL: `sendto` calls of the service's backends while `n` describes run. */
const countRoundTrips = async (served: Served, n: number) => {
  if (served.database === undefined || postgresUrl === undefined) return Number.NaN
  const admin = new Bun.SQL(postgresUrl)
  // The Instance lock's session pings every second: leave it out (it holds an advisory lock).
  const rows = await admin.unsafe(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid NOT IN
    (SELECT pid FROM pg_locks WHERE locktype = 'advisory')`, [served.database]) as Array<{ pid: number }>
  await admin.close()
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bench-fixed-")), "trace.txt")
  const strace = Bun.spawn({
    cmd: ["strace", "-f", "-qq", "-e", "trace=sendto", "-o", file, ...rows.flatMap((row) => ["-p", String(row.pid)])],
    stdout: "ignore",
    stderr: "ignore"
  })
  await sleep(1000)
  for (let i = 0; i < n; i++) await send(served)
  await sleep(300)
  strace.kill("SIGINT")
  await strace.exited
  const calls = fs.readFileSync(file, "utf8").split("\n").filter((line) => line.includes("sendto(")).length
  fs.rmSync(path.dirname(file), { recursive: true, force: true })
  return calls / n
}

console.log(`\n## Fixed cost of a describe (10-byte non-image): before = ${before}, after = working tree\n`)
console.log("```")
console.log(`command: ${postgresUrl ? `BENCH_DATABASE_URL=${postgresUrl} ` : ""}bun scripts/bench/fixedCost.ts --before ${before} --rounds ${rounds} --batch ${batch}`)
console.log(`load at the start: ${os.loadavg().map((l) => l.toFixed(2)).join(", ")}`)
console.log("```\n")

const countRows: Array<Array<string>> = []
for (const kind of kinds) {
  for (const build of ["before", "after"] as const) {
    const counted = await countStatements(kind, build)
    countRows.push([kind, build, String(counted.describes), counted.statements.toFixed(2), counted.transactions.toFixed(2)])
  }
}

const timingRows: Array<Array<string>> = []
const tripRows: Array<Array<string>> = []
for (const kind of kinds) {
  const children = { before: await start(kind, builds.before), after: await start(kind, builds.after) }
  try {
    const samples: Record<Build, Array<number>> = { before: [], after: [] }
    const statuses: Record<Build, Array<number>> = { before: [], after: [] }
    // Warm-up: the embedded database's WebAssembly reaches its optimised tier (lib/load.ts, `warmUp`).
    for (const build of ["before", "after"] as const) for (let i = 0; i < 1000; i++) await send(children[build].served)
    for (let round = 0; round < rounds; round++) {
      const order: ReadonlyArray<Build> = round % 2 === 0 ? ["before", "after"] : ["after", "before"]
      for (const build of order) {
        for (let i = 0; i < batch; i++) {
          const sample = await send(children[build].served)
          samples[build].push(sample.ms)
          statuses[build].push(sample.status)
        }
      }
    }
    for (const build of ["before", "after"] as const) {
      timingRows.push([kind, build, String(samples[build].length), `${percentile(samples[build], 50).toFixed(2)} ms`,
        `${percentile(samples[build], 99).toFixed(2)} ms`, statusSummary(statuses[build])])
    }
    if (kind === "service-postgres") {
      for (const build of ["before", "after"] as const) tripRows.push([build, (await countRoundTrips(children[build].served, 100)).toFixed(2)])
    }
  } finally {
    await children.before.stop()
    await children.after.stop()
  }
}

console.log("### SQL statements per describe (spans of 20 describes)\n")
console.log(table(["server", "build", "describes traced", "statements", "transactions"], countRows))
if (tripRows.length > 0) {
  console.log("\n### PostgreSQL round trips per describe (backend sendto calls over 100 describes)\n")
  console.log(table(["build", "round trips"], tripRows))
}
console.log(`\n### Latency, one client, ${rounds} alternating rounds of ${batch} requests per build\n`)
console.log(table(["server", "build", "requests", "p50", "p99", "statuses"], timingRows))
console.log(`\nload at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(", ")}`)
await collector.stop(true)
process.exit(0)
