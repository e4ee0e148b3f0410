/**
 * The data folder's lock (README "Stale lock"): the kernel's lock on `DATA_DIR/lock`, so exactly
 * one of many contenders holds the folder whatever `lock.json` says (a crash's leftover, or a pid
 * that is the starter's own, as in containers); a reader never sees `lock.json` half-written while
 * the service publishes into it; a process removes only its own; and the first start's creating
 * process holds the folder with the service, and after it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option, Redacted, Schedule } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as DataDirLock from "../../src/db/DataDirLock.ts"
import { endedProcessId, freePort, tempDataDir } from "../support/process.ts"

const lockFile = (dataDir: string) => path.join(dataDir, "lock.json")

const writeLock = (dataDir: string, lock: typeof DataDirLock.LockInfo.Encoded) =>
  Effect.promise(() => fs.writeFile(lockFile(dataDir), JSON.stringify(lock), { mode: 0o600 }))

/** Another process holding the folder's lock until `end`. */
const holding = (dataDir: string) =>
  Effect.gen(function* () {
    const script = `import * as DataDirLock from "./src/db/DataDirLock.ts"
import { Effect } from "effect"
await Effect.runPromise(Effect.scoped(Effect.zipRight(DataDirLock.acquire(process.env.LOCKED_DIR, "service"),
  Effect.promise(async () => { console.log("held"); for await (const _ of console) {} }))))`
    const child = Bun.spawn({
      cmd: [process.execPath, "-e", script],
      env: { PATH: process.env.PATH ?? "", LOCKED_DIR: dataDir },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "inherit"
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
    yield* Effect.promise(() => child.stdout.getReader().read())
    return { end: Effect.promise(async () => { child.stdin.end(); await child.exited }) }
  })

/** The pid of the process creating the embedded database in `dataDir` (pgliteCreate.ts). */
const creatorOf = (dataDir: string) =>
  Effect.promise(() => fs.readdir("/proc")).pipe(
    Effect.flatMap((entries) =>
      Effect.findFirst(entries.filter((entry) => /^\d+$/.test(entry)), (pid) =>
        Effect.promise(() => fs.readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).pipe(
          Effect.map((cmdline) => cmdline.includes("pgliteCreate.ts") && cmdline.includes(dataDir))
        ))),
    Effect.flatMap(Option.match({ onNone: () => Effect.fail("no creating process yet"), onSome: (pid) => Effect.succeed(Number(pid)) }))
  )

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const modeOf = (file: string) => Effect.promise(async () => (await fs.stat(file)).mode & 0o777)

/** Reads the lock over and over for a while, as the CLI does once; how often it was not whole JSON. */
const readerScript = `
const fs = require("node:fs")
const end = Date.now() + 1500
let reads = 0, unreadable = 0
while (Date.now() < end) {
  reads++
  try { JSON.parse(fs.readFileSync(process.env.LOCK_FILE, "utf8")) } catch { unreadable++ }
}
console.log(JSON.stringify({ reads, unreadable }))`

describe("the data folder's lock", () => {
  it.scopedLive("left by a crash is taken over by exactly one of many contenders at once", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      const stale = endedProcessId()
      for (let round = 0; round < 20; round++) {
        const won = yield* Effect.scoped(Effect.gen(function* () {
          yield* writeLock(dataDir, { pid: stale, owner: "service" })
          // Held until the round's scope closes: the losers meet the winner's lock, not a free folder.
          const exits = yield* Effect.forEach(
            Array.from({ length: 8 }),
            () => Effect.exit(DataDirLock.acquire(dataDir, "service")),
            { concurrency: "unbounded" }
          )
          const winners = exits.filter(Exit.isSuccess)
          expect(yield* DataDirLock.read(dataDir)).toMatchObject({ _tag: "Some", value: { pid: process.pid, owner: "service" } })
          expect(yield* modeOf(lockFile(dataDir))).toBe(0o600)
          return winners.length
        }))
        expect(won).toBe(1)
        // The winner let go; nothing but the (unlocked) lock file is left in the folder.
        expect(yield* Effect.promise(() => fs.readdir(dataDir))).toEqual(["lock"])
      }
    }), 60_000)

  it.scopedLive("is read whole, never half-written, while the service publishes into it again and again", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      yield* DataDirLock.acquire(dataDir, "service")
      // Long texts, by turns longer and shorter, take a while to write: a reader would meet one
      // truncated, or (Bun writes in place, then truncates) the new text followed by the old one's tail.
      const url = (i: number) => `http://127.0.0.1:${1000 + i}/${"x".repeat(i % 2 === 0 ? 200_000 : 100_000)}`
      // The CLI is another process: it reads while this one writes, truly at the same time.
      const reader = Bun.spawn({ cmd: [process.execPath, "-e", readerScript], env: { LOCK_FILE: lockFile(dataDir) }, stdout: "pipe" })
      let published = 0
      while (reader.exitCode === null) {
        yield* DataDirLock.publish(dataDir, { url: url(published), operatorToken: Redacted.make(`token-${published}`) })
        published++
      }
      const seen: unknown = JSON.parse(yield* Effect.promise(() => new Response(reader.stdout).text()))
      expect(seen).toEqual({ reads: expect.any(Number), unreadable: 0 })
      expect(published).toBeGreaterThan(10)
      expect(yield* DataDirLock.read(dataDir)).toMatchObject({ _tag: "Some", value: { url: url(published - 1) } })
      expect(yield* modeOf(lockFile(dataDir))).toBe(0o600)
      expect((yield* Effect.promise(() => fs.readdir(dataDir))).sort()).toEqual(["lock", "lock.json"])
    }), 60_000)

  it.scopedLive("left half-written by an older version's crash is taken over", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      yield* Effect.promise(() => fs.writeFile(lockFile(dataDir), '{"pid":12', { mode: 0o600 }))
      yield* DataDirLock.acquire(dataDir, "cli")
      expect(yield* DataDirLock.read(dataDir)).toMatchObject({ _tag: "Some", value: { pid: process.pid, owner: "cli" } })
      expect((yield* Effect.promise(() => fs.readdir(dataDir))).sort()).toEqual(["lock", "lock.json"])
    }), 60_000)

  it.scopedLive("taken over by another process meanwhile is left to it when this one lets go", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      const other = { pid: process.ppid, owner: "cli" as const, nonce: "theirs" }
      yield* Effect.scoped(Effect.gen(function* () {
        yield* DataDirLock.acquire(dataDir, "service")
        yield* writeLock(dataDir, other)
      }))
      expect(yield* DataDirLock.read(dataDir)).toEqual(Option.some(other))
    }), 60_000)

  it.scopedLive("held by another process, it is busy even when lock.json names this very process (in containers every service is PID 1)", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      const holder = yield* holding(dataDir)
      yield* writeLock(dataDir, { pid: process.pid, owner: "service", nonce: "a container's" })
      const refused = yield* Effect.flip(DataDirLock.acquire(dataDir, "service"))
      expect(refused).toMatchObject({ _tag: "DataDirBusy", holder: { pid: process.pid, owner: "service" } })
      yield* holder.end
      yield* DataDirLock.acquire(dataDir, "service")
      expect(yield* DataDirLock.read(dataDir)).toMatchObject({ _tag: "Some", value: { pid: process.pid, owner: "service" } })
    }), 60_000)

  it.scopedLive("the first start's creating process holds the folder with the service, and after it should the service be killed", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "data")
      const port = yield* freePort
      const service = Bun.spawn({
        cmd: [process.execPath, "src/main.ts"],
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" },
        stdio: ["ignore", "ignore", "ignore"]
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => service.kill("SIGKILL")))
      const creator = yield* creatorOf(dataDir).pipe(Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("30 seconds"))))
      // Stopped, so that it is surely still at work when the service dies.
      process.kill(creator, "SIGSTOP")
      yield* Effect.addFinalizer(() => Effect.sync(() => isAlive(creator) && process.kill(creator, "SIGKILL")))
      service.kill("SIGKILL")
      yield* Effect.promise(() => service.exited)
      const refused = yield* Effect.flip(DataDirLock.acquire(dataDir, "service"))
      expect(refused._tag).toBe("DataDirBusy")
      process.kill(creator, "SIGCONT")
      yield* Effect.suspend(() => (isAlive(creator) ? Effect.fail("creating") : Effect.void)).pipe(
        Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("60 seconds")))
      )
      yield* DataDirLock.acquire(dataDir, "service")
    }), 120_000)
})
