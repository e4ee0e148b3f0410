/**
 * The service (`bun src/main.ts`) and the operator CLI (`bun src/cli/main.ts`) as real processes,
 * as an operator runs them: loopback only, each on a temporary data folder and a free port,
 * bounded in time, and killed when the test's scope closes, even when the test fails.
 * These effects need the live clock (`it.scopedLive`).
 */
import { Duration, Effect, Schedule } from "effect"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** Under `bun --bun vitest` the test workers run on Bun itself; otherwise the project's Bun. */
const bun = path.basename(process.execPath).startsWith("bun") ? process.execPath : path.join(root, "node_modules/.bin/bun")

export type Env = Readonly<Record<string, string>>

/** Only what Bun needs to run: nothing of the test's own environment (DATABASE_URL, PORT...) leaks in. */
const baseEnv: Env = { PATH: process.env.PATH ?? "", HOME: os.homedir(), TMPDIR: os.tmpdir() }

/** A data folder of its own, removed with the scope. */
export const tempDataDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "image-metadata-test-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

/** A port nobody listens on right now. */
export const freePort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** Whether this machine can listen on a loopback address (IPv6 may be off). */
export const canListenOn = (host: string) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen(0, host, () => server.close(() => resolve(true)))
  })

interface Running {
  readonly child: Bun.Subprocess<"ignore", "pipe", "pipe">
  readonly stdout: Promise<string>
  readonly stderr: Promise<string>
}

export interface Finished {
  /** `null` when ended by a signal. */
  readonly exitCode: number | null
  readonly signal: string | number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Children not yet reaped. Should a test worker end without closing a scope (a hook timing out),
 * they are killed as it exits rather than left running.
 */
const children = new Set<Bun.Subprocess>()
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL")
})

/** With `openFiles`, under that limit of file descriptors (`ulimit -n`, soft and hard). */
const spawn = (args: ReadonlyArray<string>, env: Env, openFiles?: number) =>
  Effect.acquireRelease(
    Effect.sync((): Running => {
      const child = Bun.spawn({
        cmd: openFiles === undefined ? [bun, ...args] : ["sh", "-c", `ulimit -n ${openFiles} && exec "$0" "$@"`, bun, ...args],
        cwd: root,
        env: { ...baseEnv, ...env },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe"
      })
      children.add(child)
      void child.exited.then(() => children.delete(child))
      return { child, stdout: new Response(child.stdout).text(), stderr: new Response(child.stderr).text() }
    }),
    ({ child }) =>
      Effect.promise(() => {
        child.kill("SIGKILL") // nothing when it has already exited
        return child.exited
      })
  )

const finished = (running: Running) =>
  Effect.promise(async (): Promise<Finished> => {
    await running.child.exited
    return {
      exitCode: running.child.exitCode,
      signal: running.child.signalCode,
      stdout: await running.stdout,
      stderr: await running.stderr
    }
  })

const bounded = (what: string, limit: Duration.DurationInput) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.timeoutFail(self, {
    duration: limit,
    onTimeout: () => new Error(`${what}: no answer within ${Duration.format(limit)}`)
  }).pipe(Effect.orDie)

/** `bun src/cli/main.ts ...args`, to its end (killed after a minute). */
export const cli = (env: Env, ...args: ReadonlyArray<string>) =>
  spawn(["src/cli/main.ts", ...args], env).pipe(
    Effect.flatMap(finished),
    bounded(`bun run admin ${args.join(" ")}`, "60 seconds"),
    Effect.scoped
  )

/** Like `cli`, for a command expected to succeed: its stdout, or a defect with what it printed. */
export const cliOk = (env: Env, ...args: ReadonlyArray<string>) =>
  cli(env, ...args).pipe(
    Effect.flatMap((ran) =>
      ran.exitCode === 0
        ? Effect.succeed(ran.stdout)
        : Effect.dieMessage(`bun run admin ${args.join(" ")} exited with ${ran.exitCode}:\n${ran.stderr}`)
    )
  )

/** `bun src/main.ts` on a free loopback port, for a start expected to fail: to its end (killed after a minute). */
export const serviceToEnd = (env: Env) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const running = yield* spawn(["src/main.ts"], { PORT: String(port), HOST: "127.0.0.1", ...env })
    return yield* finished(running).pipe(bounded("service", "60 seconds"))
  }).pipe(Effect.scoped)

/** The id of a process that has ended: what a stale lock holds. */
export const endedProcessId = () => Bun.spawnSync({ cmd: [bun, "--version"], env: baseEnv }).pid

/** What a client of the API sees: status and parsed JSON body. */
const request = (url: string, init?: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    const body: unknown = await response.json()
    return { status: response.status, body }
  })

export const getTokens = (baseUrl: string, key: string) =>
  request(`${baseUrl}/api/tokens`, { headers: { authorization: `Bearer ${key}` } })

export interface Service {
  readonly url: string
  readonly pid: number
  /** True while the process has not exited. */
  readonly running: Effect.Effect<boolean>
  /** Sends `signal` and waits for the exit (killed after 30 s): what the process printed, how it ended. */
  readonly stop: (signal: "SIGTERM" | "SIGKILL") => Effect.Effect<Finished>
}

/** The router's own 401 on `GET /api/tokens`: the server listens and its start-up is over. */
const answers = (url: string) =>
  Effect.tryPromise(() => fetch(`${url}/api/tokens`)).pipe(
    Effect.filterOrFail((response) => response.status === 401, () => new Error("not ready"))
  )

/**
 * `bun src/main.ts` on a free port of `host` (loopback), ready once `GET /api/tokens` answers;
 * killed with the scope. Dies with what the service printed if it exits, or is not ready in 90 s
 * (a hang guard: a first start creates the embedded database, which a loaded CI machine can take
 * past 30 s over).
 * With `openFiles`, it runs under that limit of file descriptors (sockets included).
 */
export const startService = (env: Env, host = "127.0.0.1", openFiles?: number) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const running = yield* spawn(["src/main.ts"], { ...env, PORT: String(port), HOST: host }, openFiles)
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`
    const ready = answers(url).pipe(Effect.retry(Schedule.spaced("100 millis")), Effect.as(undefined))
    const exited = finished(running)
    const killed = Effect.sync(() => running.child.kill("SIGKILL")).pipe(Effect.zipRight(finished(running)))
    const early = yield* Effect.raceFirst(ready, exited).pipe(
      Effect.timeout("90 seconds"),
      Effect.catchTag("TimeoutException", () => killed)
    )
    if (early !== undefined) {
      const end = early.exitCode ?? early.signal
      return yield* Effect.dieMessage(`the service did not start (ended with ${end}):\n${early.stderr}${early.stdout}`)
    }
    const stop = (signal: "SIGTERM" | "SIGKILL") =>
      Effect.sync(() => running.child.kill(signal)).pipe(
        Effect.zipRight(finished(running)),
        bounded(`service stop (${signal})`, "30 seconds")
      )
    const alive = Effect.sync(() => running.child.exitCode === null && running.child.signalCode === null)
    return { url, pid: running.child.pid, running: alive, stop } satisfies Service
  })

/** A process's resident memory now and at its peak so far, in bytes (Linux `/proc/PID/status`). */
export const processMemory = (pid: number) =>
  Effect.promise(() => fs.readFile(`/proc/${pid}/status`, "utf8")).pipe(
    Effect.map((status) => {
      const kB = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? Number.NaN) * 1024
      return { rssBytes: kB("VmRSS"), peakBytes: kB("VmHWM") }
    })
  )
