/**
 * The embedded database's folder is the service user's alone (README "Operations"): created 0700,
 * every file 0600, also those PGlite makes later; loose modes of an older folder repaired, with a
 * warning; a folder of another user refused before anything is written in it.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Database from "../../src/db/Database.ts"
import { entriesOf, looseModes } from "../support/fileModes.ts"
import { tempDataDir } from "../support/process.ts"

/** Writes that make PostgreSQL create new files: a table, an index, enough rows, a checkpoint. */
const writeAFewFiles = (table: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`CREATE TABLE ${table} (x text)`)
    yield* sql.unsafe(`CREATE INDEX ${table}_x ON ${table} (x)`)
    yield* sql.unsafe(`INSERT INTO ${table} SELECT repeat('x', 100) || g FROM generate_series(1, 20000) g`)
    yield* sql.unsafe("CHECKPOINT")
  })

const opened = (dataDir: string) => Database.layerPglite(dataDir, "cli")

const warnings: Array<{ readonly message: unknown; readonly annotations: unknown }> = []
const collecting = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ logLevel, message, annotations }) => {
    if (logLevel._tag === "Warning") warnings.push({ message, annotations: Object.fromEntries(annotations) })
  })
)

describe("the embedded database's data folder", () => {
  it.scopedLive("is created 0700 with every file 0600, also the files PGlite creates after writes", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "nested", "data")
      const atStart = yield* Effect.gen(function* () {
        const atStart = yield* looseModes(dataDir)
        yield* writeAFewFiles("later")
        const afterWrites = yield* looseModes(dataDir)
        expect(afterWrites.loose).toEqual([])
        expect(afterWrites.count).toBeGreaterThan(atStart.count)
        return atStart
      }).pipe(Effect.provide(opened(dataDir)))
      expect(atStart.loose).toEqual([])
      expect(atStart.count).toBeGreaterThan(900)
      // After the close (and its checkpoint), and after a second open.
      expect((yield* looseModes(dataDir)).loose).toEqual([])
      yield* writeAFewFiles("evenLater").pipe(Effect.provide(opened(dataDir)))
      expect((yield* looseModes(dataDir)).loose).toEqual([])
    }), 120_000)

  it.scopedLive("with loose modes (an older version's) is made owner-only at start-up, and the log says so", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "data")
      yield* Effect.provide(Effect.void, opened(dataDir))
      // What earlier versions left: a world-readable folder, world-writable files.
      const entries = yield* entriesOf(dataDir)
      yield* Effect.promise(async () => {
        for (const { entry, kind } of entries) await fs.chmod(entry, kind === "dir" ? 0o755 : 0o666)
      })
      const before = yield* looseModes(dataDir)
      expect(before.loose.length).toBe(before.count)

      warnings.length = 0
      yield* Effect.provide(Effect.void, opened(dataDir)).pipe(Effect.provide(collecting))
      expect((yield* looseModes(dataDir)).loose).toEqual([])
      expect(warnings).toEqual([{
        message: ["made the data folder owner-only: its files were open to other users"],
        annotations: { dataDir, repaired: before.count }
      }])

      // Nothing to say the next time.
      warnings.length = 0
      yield* Effect.provide(Effect.void, opened(dataDir)).pipe(Effect.provide(collecting))
      expect(warnings).toEqual([])
    }), 120_000)

  it.scopedLive("holding other files and no database is refused, nothing in it changed (a mistaken DATA_DIR=/srv)", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "site")
      const page = path.join(dataDir, "www", "index.html")
      yield* Effect.promise(async () => {
        await fs.mkdir(path.dirname(page), { recursive: true, mode: 0o755 })
        await fs.writeFile(page, "hi", { mode: 0o644 })
        await fs.chmod(dataDir, 0o755)
        await fs.writeFile(path.join(dataDir, "lock"), "")
      })
      const refused = yield* Effect.flip(Effect.provide(Effect.void, opened(dataDir)))
      expect([refused._tag, refused.message]).toEqual([
        "DataDirNotDatabase",
        `the data folder ${dataDir} holds other files (www) and no database; nothing in it was changed: ` +
          "set DATA_DIR to the service's data folder, or to an empty or new one"
      ])
      const modes = yield* Effect.promise(() => Promise.all([dataDir, path.dirname(page), page].map(async (entry) => (await fs.stat(entry)).mode & 0o777)))
      expect(modes).toEqual([0o755, 0o755, 0o644])
      expect((yield* Effect.promise(() => fs.readdir(dataDir))).sort()).toEqual(["lock", "www"])
    }), 60_000)

  it.scopedLive("holding what may come before a database (a fresh volume's lost+found, a .gitkeep, a creation cut short) is used", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "volume")
      yield* Effect.promise(async () => {
        for (const folder of ["lost+found", "global", "pg_wal"]) await fs.mkdir(path.join(dataDir, folder), { recursive: true })
        await fs.writeFile(path.join(dataDir, ".gitkeep"), "")
      })
      const rows = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ ok: number }>`SELECT 1 AS ok`).pipe(Effect.provide(opened(dataDir)))
      expect(rows).toEqual([{ ok: 1 }])
      expect(yield* Effect.promise(() => fs.readdir(dataDir))).toContain("PG_VERSION")
    }), 120_000)

  const root = process.getuid?.() === 0
  it.scopedLive.skipIf(!root)("of another user is refused with a clear message, before anything is written in it", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "data")
      yield* Effect.promise(async () => {
        await fs.mkdir(dataDir, { mode: 0o700 })
        await fs.chown(dataDir, 65534, 65534)
      })
      const refused = yield* Effect.flip(Effect.provide(Effect.void, opened(dataDir)))
      expect(refused._tag).toBe("DataDirNotOwned")
      expect(refused.message).toBe(
        `the data folder ${dataDir} belongs to uid 65534, not to uid 0 that runs this process: ` +
          "run as its owner, give it to this user (chown -R), or set DATA_DIR to a folder of its own"
      )
      expect(yield* Effect.promise(() => fs.readdir(dataDir))).toEqual([])
    }), 60_000)
  if (!root) describe.skip("a folder of another user: needs root to chown one (run the tests as root)", () => it("skipped", () => {}))
})
