/**
 * The embedded database's folder survives a crash of the machine: a commit is on disk before it is
 * answered, a checkpoint syncs the files it wrote, and a new folder is synced whole before the
 * service starts on it. Seen through the sync each write asks for (`DataDir.Sync`), recorded with
 * the path of the descriptor it was given.
 */
import { PGlite } from "@electric-sql/pglite"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fsSync from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type Sync, syncFolder, syncToDisk } from "../../src/db/DataDir.ts"
import { pgliteOptions } from "../../src/db/pgliteOptions.ts"
import { tempDataDir } from "../support/process.ts"

/** A sync that records what it synced (Linux: the descriptor's path), then syncs it. */
const recordingSync = () => {
  const synced: Array<string> = []
  const sync: Sync = (fd) => {
    synced.push(fsSync.readlinkSync(`/proc/self/fd/${fd}`))
    syncToDisk(fd)
  }
  return { synced, sync }
}

const openedWith = (dataDir: string, sync: Sync) =>
  Effect.acquireRelease(Effect.promise(() => PGlite.create(pgliteOptions(dataDir, sync))), (db) => Effect.promise(() => db.close()))

describe("the embedded database's durability", () => {
  it.scopedLive("syncs the write-ahead log at each commit, before the commit is answered", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "data")
      const { synced, sync } = recordingSync()
      const db = yield* openedWith(dataDir, sync)
      yield* Effect.promise(() => db.query("CREATE TABLE credits (id int PRIMARY KEY, balance int)"))
      for (let commit = 1; commit <= 5; commit++) {
        synced.length = 0
        yield* Effect.promise(() => db.query("INSERT INTO credits VALUES ($1, 10)", [commit]))
        expect(synced.map((file) => path.relative(dataDir, file))).toEqual([expect.stringMatching(/^pg_wal\/[0-9A-F]{24}$/)])
      }
      // A read commits nothing: nothing to wait for.
      synced.length = 0
      yield* Effect.promise(() => db.query("SELECT sum(balance) FROM credits"))
      expect(synced).toEqual([])
    }), 60_000)

  it.scopedLive("syncs the files and folders a checkpoint wrote", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "data")
      const { synced, sync } = recordingSync()
      const db = yield* openedWith(dataDir, sync)
      yield* Effect.promise(() => db.query("CREATE TABLE credits (id int PRIMARY KEY, balance int)"))
      yield* Effect.promise(() => db.query("INSERT INTO credits SELECT g, 10 FROM generate_series(1, 1000) g"))
      synced.length = 0
      yield* Effect.promise(() => db.query("CHECKPOINT"))
      const relative = synced.map((file) => path.relative(dataDir, file))
      expect(relative.filter((file) => file.startsWith("base/")).length).toBeGreaterThan(0)
      expect(relative).toContain("global/pg_control")
      expect(synced.some((entry) => fsSync.statSync(entry, { throwIfNoEntry: false })?.isDirectory())).toBe(true)
    }), 60_000)

  it.scopedLive("syncs a folder whole, each folder after its entries, then the folder holding it", () =>
    Effect.gen(function* () {
      const root = yield* tempDataDir
      const dataDir = path.join(root, "data")
      yield* Effect.promise(async () => {
        await fs.mkdir(path.join(dataDir, "base", "1"), { recursive: true })
        await fs.writeFile(path.join(dataDir, "PG_VERSION"), "17\n")
        await fs.writeFile(path.join(dataDir, "base", "1", "1259"), "rows")
        await fs.symlink("/etc/passwd", path.join(dataDir, "elsewhere"))
      })
      const { synced, sync } = recordingSync()
      const count = yield* Effect.promise(() => syncFolder(dataDir, sync))
      expect(synced.map((entry) => path.relative(root, entry))).toEqual([
        // In name order; the link is not followed.
        "data/PG_VERSION",
        "data/base/1/1259",
        "data/base/1",
        "data/base",
        "data",
        ""
      ])
      expect(count).toBe(6)
    }))
})
