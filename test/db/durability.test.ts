/**
 * The embedded database's folder survives a crash of the machine: a commit is on disk before it is
 * answered, a checkpoint syncs the files it wrote, and a new folder is synced whole before the
 * service starts on it. Seen through the sync each write asks for (`DataDir.Sync`), recorded with
 * the path of the descriptor it was given.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import { PGlite } from "@electric-sql/pglite"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import * as fsSync from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Database from "../../src/db/Database.ts"
import { type Sync, syncFolder, syncToDisk } from "../../src/db/DataDir.ts"
import { migrate } from "../../src/db/migrate.ts"
import { clientOn } from "../../src/db/PgliteClient.ts"
import { pgliteOptions } from "../../src/db/pgliteOptions.ts"
import { Credits } from "../../src/services/Credits.ts"
import { testSettingsOrDie } from "../support/config.ts"
import { fundedRequests } from "../support/creditRequests.ts"
import { tempDataDir } from "../support/process.ts"
import { servicesOn } from "../support/services.ts"

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

  // A describe waits for the disk once, for its ending; its hold does not (creditStatements.ts).
  it.scopedLive("waits for the disk for a request's ending (charge, release, refusal), not for its hold", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "data")
      const { synced, sync } = recordingSync()
      const db = yield* openedWith(dataDir, sync)
      const database = Layer.effectDiscard(migrate).pipe(
        Layer.provideMerge(Layer.scoped(SqlClient.SqlClient, clientOn(db, dataDir))),
        Layer.provide(Reactivity.layer),
        Layer.orDie,
        Layer.merge(testSettingsOrDie())
      )
      const walSyncs = () => synced.filter((file) => file.includes(`${path.sep}pg_wal${path.sep}`)).length
      yield* Effect.gen(function* () {
        const credits = yield* Credits
        const request = yield* fundedRequests(1)

        synced.length = 0
        const failed = yield* Effect.exit(credits.withCredit(request(400), Effect.fail("not an image")))
        expect(Exit.isFailure(failed)).toBe(true)
        expect(walSyncs()).toBe(1)

        synced.length = 0
        const charged = yield* credits.withCredit(request(200), Effect.succeed("described"))
        expect(charged).toBe("described")
        expect(walSyncs()).toBe(1)

        // No credit left: the refusal (401) is recorded, and waits for the disk.
        synced.length = 0
        const refused = yield* Effect.flip(credits.withCredit(request(200), Effect.succeed("described")))
        expect(refused._tag).toBe("NoCreditLeft")
        expect(walSyncs()).toBe(1)
      }).pipe(Effect.provide(servicesOn({ name: "PGlite in a folder", layer: database })))
    }), 60_000)

  // PGlite has no log writer: a commit that does not wait stays in the process until one that does.
  it.scopedLive("a process killed right after answering keeps every answered request's usage row and charge", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "data")
      const child = Bun.spawn({
        cmd: [process.execPath, path.join(import.meta.dirname, "../support/answeredThenKilled.ts"), dataDir, "3", "20"],
        stdout: "pipe",
        stderr: "inherit"
      })
      const output = yield* Effect.promise(async () => {
        let text = ""
        for await (const chunk of child.stdout) {
          text += new TextDecoder().decode(chunk)
          if (text.includes("answered")) break
        }
        return text
      })
      expect(output).toContain("answered")
      child.kill("SIGKILL")
      yield* Effect.promise(() => child.exited)

      const { usage, balance } = yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const usage = yield* sql<{ readonly state: string; readonly status: number; readonly count: number }>`
          SELECT state, status, count(*)::int AS count FROM usage GROUP BY state, status ORDER BY state`
        const [balance] = yield* sql<{ readonly credits: number; readonly reserved: number }>`SELECT credits, reserved FROM accounts`
        return { usage, balance }
      }).pipe(Effect.provide(Database.layerPglite(dataDir).pipe(Layer.orDie)))
      expect(usage).toEqual([{ state: "charged", status: 200, count: 3 }, { state: "released", status: 400, count: 20 }])
      expect(balance).toEqual({ credits: 997, reserved: 0 })
    }), 60_000)

  // PostgreSQL ends on a PANIC; inside PGlite nothing ends, and a statement sent after it never
  // returns: in a child process, killed if it does not end, as no timer fires while it spins.
  it.scopedLive("a sync that fails stops the database: that statement and every later one fail at once, none hangs", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "data")
      const child = Bun.spawn({
        cmd: [process.execPath, path.join(import.meta.dirname, "../support/panicThenQuery.ts"), dataDir],
        stdout: "pipe",
        stderr: "ignore",
        timeout: 30_000
      })
      const output = yield* Effect.promise(() => new Response(child.stdout).text())
      expect(yield* Effect.promise(() => child.exited)).toBe(0)
      // Its own lines; the log (the PANIC's, once) goes to the same output.
      const steps = output.split("\n").filter((line) => line.startsWith(`{"step"`))
      expect(output).toContain("the embedded database stopped after a PANIC")
      expect(steps.map((line) => JSON.parse(line))).toEqual([
        { step: "insert", message: "PGlite: failed to execute statement", stopped: true },
        { step: "later", message: "PGlite: the database stopped after a PANIC; restart the service", stopped: true }
      ])
    }), 60_000)
})

