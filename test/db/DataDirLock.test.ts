/**
 * The data folder's lock (README "Stale lock"): exactly one of many contenders takes a stale lock
 * over, a reader never sees the lock half-written while the service publishes into it, and a
 * process lets go only of its own lock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option, Redacted } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as DataDirLock from "../../src/db/DataDirLock.ts"
import { endedProcessId, tempDataDir } from "../support/process.ts"

const lockFile = (dataDir: string) => path.join(dataDir, "lock.json")

const writeLock = (dataDir: string, lock: typeof DataDirLock.LockInfo.Encoded) =>
  Effect.promise(() => fs.writeFile(lockFile(dataDir), JSON.stringify(lock), { mode: 0o600 }))

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
        // The winner let go; nothing else is left in the folder.
        expect(yield* Effect.promise(() => fs.readdir(dataDir))).toEqual([])
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
      expect(yield* Effect.promise(() => fs.readdir(dataDir))).toEqual(["lock.json"])
    }), 60_000)

  it.scopedLive("left half-written by an older version's crash is taken over", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      yield* Effect.promise(() => fs.writeFile(lockFile(dataDir), '{"pid":12', { mode: 0o600 }))
      yield* DataDirLock.acquire(dataDir, "cli")
      expect(yield* DataDirLock.read(dataDir)).toMatchObject({ _tag: "Some", value: { pid: process.pid, owner: "cli" } })
      expect(yield* Effect.promise(() => fs.readdir(dataDir))).toEqual(["lock.json"])
    }), 60_000)

  it.scopedLive("taken over by another process meanwhile is left to it when this one lets go", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      const other = { pid: process.ppid, owner: "cli" as const, startedAt: "elsewhere", nonce: "theirs" }
      yield* Effect.scoped(Effect.gen(function* () {
        yield* DataDirLock.acquire(dataDir, "service")
        yield* writeLock(dataDir, other)
      }))
      expect(yield* DataDirLock.read(dataDir)).toEqual(Option.some(other))
    }), 60_000)
})
