/**
 * The servers under test, as child processes on loopback: the real service (`bun src/main.ts`,
 * embedded database in a temporary folder, an account and key made with the operator CLI) and
 * the baseline (`bun scripts/bench/baseline.ts`), from the code `source.ts` picks. Both call the
 * bench's fake model. Every child is killed when its `stop` runs, and when the bench process ends
 * early (signal, deadline).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as net from "node:net"
import * as path from "node:path"
import { startedWith } from "./loadGenerator.ts"
import { projectRoot, source } from "./source.ts"
import { startDefaultsOf } from "../../startDefaults.ts"

const root = source.root

/** The benches run on Bun: the same binary runs the children. */
const bun = process.execPath

export type TargetName = "service" | "service-postgres" | "baseline"

/**
 * With `BENCH_DATABASE_URL` (a PostgreSQL server's URL, e.g. the local one of `.ci/run`), the
 * service also runs on a fresh database of that server ("service-postgres"): the same figures
 * without the embedded database in the process.
 */
const postgresUrl = process.env["BENCH_DATABASE_URL"]

/** The servers every bench measures, in order. */
export const targetNames: ReadonlyArray<TargetName> =
  postgresUrl === undefined || postgresUrl === "" ? ["service", "baseline"] : ["service", "service-postgres", "baseline"]

export interface Target {
  readonly name: TargetName
  readonly url: string
  readonly pid: number
  /** `Authorization` header value accepted by the target. */
  readonly authorization: string
  /** Where the child's stdout and stderr go. */
  readonly logFile: string
  readonly stop: () => Promise<void>
}

const children = new Set<Bun.Subprocess>()

const killAll = () => {
  for (const child of children) child.kill("SIGKILL")
}
process.on("exit", killAll)
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    killAll()
    process.exit(130)
  })
}

/**
 * Ends the bench process after `ms` whatever it is doing (children killed): every bench stops by
 * itself even if a server hangs. The timer does not keep the process alive.
 */
export const deadline = (ms: number, what: string): void => {
  setTimeout(() => {
    console.error(`${what}: not finished after ${Math.round(ms / 1000)} s, stopping`)
    killAll()
    process.exit(2)
  }, ms).unref()
}

/**
 * Extra Bun flags for the service's process (`BENCH_SERVICE_FLAGS="--smol"`): to see what a
 * runtime setting changes without touching the code. Unset by default.
 */
const serviceFlags = (process.env["BENCH_SERVICE_FLAGS"] ?? "").split(" ").filter((flag) => flag !== "")

/**
 * What the servers inherit; with `OTEL_EXPORTER_OTLP_ENDPOINT` set, the service exports its spans
 * there, to see where a request's time goes (the figures then include the export's cost); the
 * engine's and the allocator's own options pass through (`BUN_JSC_logGC=1` prints each collection
 * with its pause; `MIMALLOC_PURGE_DELAY=100` measures with Bun 1.4.5's default), as the bench was
 * started: not the bench's own (lib/loadGenerator.ts).
 */
const otlp = process.env["OTEL_EXPORTER_OTLP_ENDPOINT"]
const baseEnv = {
  PATH: process.env["PATH"] ?? "",
  HOME: os.homedir(),
  TMPDIR: os.tmpdir(),
  ...(otlp === undefined ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: otlp }),
  ...Object.fromEntries(Object.entries(startedWith).filter(([name]) => name.startsWith("BUN_JSC_") || name.startsWith("MIMALLOC_")))
}

/**
 * The runtime settings `npm start` gives the service (`NAME=${NAME:-default}` in the start script
 * of the measured code's package.json; README, "Runtime settings"), or this process's value of
 * each: the service runs as users run it, and one can be changed for an experiment. The baseline
 * runs on Bun's defaults, as a server written the common way does.
 */
const packageJson = [path.join(root, "package.json"), path.join(projectRoot, "package.json")].find((file) => fs.existsSync(file))
const startScript: unknown = packageJson === undefined ? undefined : JSON.parse(fs.readFileSync(packageJson, "utf8")).scripts?.start
const startDefaults: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(startDefaultsOf(String(startScript ?? ""))).map(([name, value]) => [name, startedWith[name] ?? value])
)

/**
 * The fake model stands for OpenAI's API, so the service is given the formats it takes as
 * uploaded there (docs/model-endpoints.md), which the fake's local URL would not give it; set
 * `MODEL_IMAGE_AS_UPLOADED=jpeg,png` to measure it as against a llama.cpp server, `none` as before.
 */
export const runtimeEnv: Readonly<Record<string, string>> = {
  ...startDefaults,
  MODEL_IMAGE_AS_UPLOADED: process.env["MODEL_IMAGE_AS_UPLOADED"] ?? "jpeg,png,webp"
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Polls until `/healthz` answers 200 (or the child exits, or 60 s pass). Not any answer: the code
 * of commits before 2026-11-28's `src/http/bunServer.ts` served on @effect/platform-bun's server,
 * which for a few milliseconds after it starts listening answers every request `404 not found`
 * (until the routes are installed), and a bench that began then counted those among its answers.
 */
const waitReady = async (url: string, child: Bun.Subprocess, logFile: string): Promise<void> => {
  const until = Date.now() + 60_000
  while (Date.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the server exited during start-up; its output:\n${fs.readFileSync(logFile, "utf8")}`)
    }
    const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) }).then((response) => response.ok, () => false)
    if (ok) return
    await sleep(100)
  }
  child.kill("SIGKILL")
  throw new Error(`the server did not answer within 60 s; its output:\n${fs.readFileSync(logFile, "utf8")}`)
}

const spawnServer = async (
  name: TargetName,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  dir: string,
  authorization: string
): Promise<Target> => {
  const port = await freePort()
  const logFile = path.join(dir, `${name}.log`)
  // One descriptor for both streams: each given the file on its own, the child wrote them from two
  // offsets, and its errors overwrote its log.
  const log = fs.openSync(logFile, "a")
  const child = Bun.spawn({
    cmd: [bun, ...args],
    cwd: root,
    env: { ...baseEnv, ...(name === "baseline" ? {} : runtimeEnv), ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdin: "ignore",
    stdout: log,
    stderr: log
  })
  fs.closeSync(log)
  children.add(child)
  const url = `http://127.0.0.1:${port}`
  try {
    await waitReady(url, child, logFile)
  } catch (error) {
    // The error carries the server's output: the folder can go.
    child.kill("SIGKILL")
    children.delete(child)
    fs.rmSync(dir, { recursive: true, force: true })
    throw error
  }
  const stop = async () => {
    child.kill("SIGTERM")
    const ended = await Promise.race([child.exited.then(() => true), sleep(10_000).then(() => false)])
    if (!ended) {
      child.kill("SIGKILL")
      await child.exited
    }
    children.delete(child)
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return { name, url, pid: child.pid, authorization, logFile, stop }
}

/** `bun src/cli/main.ts ...args` with `env` (no service running: it opens the database itself). */
const cli = (env: Readonly<Record<string, string>>, ...args: ReadonlyArray<string>): string => {
  const ran = Bun.spawnSync({
    cmd: [bun, "src/cli/main.ts", ...args],
    cwd: root,
    env: { ...baseEnv, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 60_000
  })
  if (ran.exitCode !== 0) throw new Error(`admin ${args.join(" ")} failed:\n${ran.stderr.toString()}`)
  return ran.stdout.toString()
}

const field = (json: string, name: string): string => {
  const value: unknown = JSON.parse(json)
  const found = typeof value === "object" && value !== null ? Object.entries(value).find(([k]) => k === name)?.[1] : undefined
  if (typeof found !== "string") throw new Error(`no "${name}" in ${json}`)
  return found
}

/**
 * The real service on an empty embedded database: an account with `credits` and a key, made with
 * the operator CLI before the start, and `OPENAI_BASE_URL` pointing at the fake model.
 */
export const startService = async (modelBaseUrl: string, credits = 1_000_000, extraEnv: Readonly<Record<string, string>> = {}): Promise<Target> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "image-metadata-bench-"))
  const dataDir = path.join(dir, "data")
  let key: string
  try {
    const account = field(cli({ DATA_DIR: dataDir }, "--init", "account", "create", "--name", "bench", "--credits", String(credits)), "id")
    key = field(cli({ DATA_DIR: dataDir }, "key", "create", account, "--name", "bench"), "key")
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return spawnServer("service", [...serviceFlags, "src/main.ts"], { ...extraEnv, DATA_DIR: dataDir, OPENAI_BASE_URL: modelBaseUrl }, dir, `Bearer ${key}`)
}

/**
 * The service on the embedded database in `dataDir` as the folder is (empty: a first start),
 * with no account made: for its memory at rest. `stop` leaves the folder for the next start.
 */
export const startServiceOn = async (modelBaseUrl: string, dataDir: string): Promise<Target> => {
  const logs = fs.mkdtempSync(path.join(os.tmpdir(), "image-metadata-bench-"))
  return spawnServer("service", [...serviceFlags, "src/main.ts"], { DATA_DIR: dataDir, OPENAI_BASE_URL: modelBaseUrl }, logs, "")
}

/** A new database on `BENCH_DATABASE_URL`'s server: its URL, and how to drop it. */
const newBenchDatabase = async () => {
  if (postgresUrl === undefined) throw new Error("BENCH_DATABASE_URL is not set")
  const name = `bench_${crypto.randomUUID().replaceAll("-", "")}`
  const admin = new Bun.SQL(postgresUrl)
  await admin.unsafe(`CREATE DATABASE ${name}`)
  const url = new URL(postgresUrl)
  url.pathname = `/${name}`
  const drop = async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.close()
  }
  return { url, drop }
}

/** The service on a new database of `BENCH_DATABASE_URL`'s server, dropped by `stop`. */
export const startServicePostgres = async (modelBaseUrl: string, credits = 1_000_000): Promise<Target> => {
  const { url, drop } = await newBenchDatabase()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "image-metadata-bench-"))
  const env = { DATABASE_URL: url.toString(), DATA_DIR: path.join(dir, "data") }
  let target: Target
  try {
    const account = field(cli(env, "account", "create", "--name", "bench", "--credits", String(credits)), "id")
    const key = field(cli(env, "key", "create", account, "--name", "bench"), "key")
    target = await spawnServer("service-postgres", [...serviceFlags, "src/main.ts"], { ...env, OPENAI_BASE_URL: modelBaseUrl }, dir, `Bearer ${key}`)
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true })
    await drop()
    throw error
  }
  return {
    ...target,
    stop: async () => {
      await target.stop()
      await drop()
    }
  }
}

/**
 * `count` service processes sharing one new database of `BENCH_DATABASE_URL`'s server (replicas),
 * with `extraEnv`; the first one's `stop` stops them all and drops the database.
 */
export const startServiceReplicas = async (
  modelBaseUrl: string,
  count: number,
  extraEnv: Readonly<Record<string, string>>,
  credits = 1_000_000
): Promise<ReadonlyArray<Target>> => {
  const { url, drop } = await newBenchDatabase()
  const dirs = Array.from({ length: count }, () => fs.mkdtempSync(path.join(os.tmpdir(), "image-metadata-bench-")))
  const envOf = (dir: string) => ({ ...extraEnv, DATABASE_URL: url.toString(), DATA_DIR: path.join(dir, "data"), OPENAI_BASE_URL: modelBaseUrl })
  const account = field(cli(envOf(dirs[0]!), "account", "create", "--name", "bench", "--credits", String(credits)), "id")
  const key = field(cli(envOf(dirs[0]!), "key", "create", account, "--name", "bench"), "key")
  const targets = await Promise.all(dirs.map((dir) => spawnServer("service-postgres", [...serviceFlags, "src/main.ts"], envOf(dir), dir, `Bearer ${key}`)))
  const stopAll = async () => {
    await Promise.all(targets.map((target) => target.stop()))
    await drop()
  }
  return targets.map((target, i) => (i === 0 ? { ...target, stop: stopAll } : target))
}

/**
 * The baseline of `scripts/bench/baseline.ts`, against the same fake model: on Bun's defaults, or
 * on the runtime settings the service is given (`runtime: "service"`, for the transport floor).
 */
export const startBaseline = async (modelBaseUrl: string, runtime: "bun" | "service" = "bun"): Promise<Target> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "image-metadata-bench-"))
  const key = "baseline-bench-key"
  return spawnServer(
    "baseline",
    ["scripts/bench/baseline.ts"],
    { ...(runtime === "service" ? runtimeEnv : {}), OPENAI_BASE_URL: modelBaseUrl, BASELINE_KEY: key },
    dir,
    `Bearer ${key}`
  )
}

export const startTarget = (name: TargetName, modelBaseUrl: string): Promise<Target> =>
  name === "service"
    ? startService(modelBaseUrl)
    : name === "service-postgres"
    ? startServicePostgres(modelBaseUrl)
    : startBaseline(modelBaseUrl)
