/**
 * A first start on an empty data folder: the embedded database is created by a process of its
 * own (`src/db/pgliteCreate.ts`), so the creation's memory (PostgreSQL's initdb peaks near 1 GB
 * inside PGlite) never stays in the service's. This file runs alone in its worker process, so the
 * worker's peak resident size is the service's.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { migrationCount } from "../../src/db/migrate.ts"
import * as PgliteClient from "../../src/db/PgliteClient.ts"
import { pgliteOptions } from "../../src/db/pgliteOptions.ts"
import { tempDataDir } from "../support/process.ts"

const peakResidentMb = () => Number(/^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync("/proc/self/status", "utf8"))?.[1]) / 1024

const withDatabase = <A, E>(dataDir: string, use: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.scoped(Effect.flatMap(Layer.build(PgliteClient.layer({ dataDir })), (context) => Effect.provide(use, context)))

describe("the embedded database's first start", () => {
  it.scopedLive("creates the database in the empty folder, keeps what is written, and the process stays under 600 MB at its peak", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "data")
      yield* withDatabase(dataDir, Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE kept (x text)`.pipe(
        Effect.zipRight(sql`INSERT INTO kept VALUES ('first start')`)
      )))
      const rows = yield* withDatabase(dataDir, Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ readonly x: string }>`SELECT x FROM kept`))
      expect(rows).toEqual([{ x: "first start" }])
      expect(fs.existsSync(path.join(dataDir, "PG_VERSION"))).toBe(true)
      expect(peakResidentMb()).toBeLessThan(600)
    }))

  // The migrations' caches stay with the process that runs them: the creating one, which exits.
  it.scopedLive("the creating process leaves the folder migrated: every migration is recorded before the service opens it", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "data")
      const created = Bun.spawnSync({ cmd: [process.execPath, path.join(import.meta.dirname, "../../src/db/pgliteCreate.ts"), dataDir] })
      expect(created.exitCode).toBe(0)
      const db = yield* Effect.acquireRelease(Effect.promise(() => PGlite.create(pgliteOptions(dataDir))), (db) => Effect.promise(() => db.close()))
      const { rows } = yield* Effect.promise(() => db.query<{ readonly applied: number }>("SELECT count(*)::int AS applied FROM effect_sql_migrations"))
      expect(rows).toEqual([{ applied: migrationCount }])
    }))

  // initdb inside PGlite syncs nothing; a machine that crashes after the start must find it all.
  // strace present and allowed to trace (some containers forbid ptrace).
  const strace = Bun.which("strace")
  const canTrace = strace !== null && Bun.spawnSync({ cmd: [strace, "-qq", "-o", "/dev/null", "true"] }).exitCode === 0
  it.scopedLive.skipIf(!canTrace)("the creating process leaves every file and folder of the new database synced to disk", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      const dataDir = path.join(dir, "data")
      const log = path.join(dir, "syncs.log")
      const created = Bun.spawnSync({
        cmd: [strace ?? "strace", "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync", "-o", log,
          process.execPath, path.join(import.meta.dirname, "../../src/db/pgliteCreate.ts"), dataDir]
      })
      expect(created.exitCode).toBe(0)
      const synced = new Set([...fs.readFileSync(log, "utf8").matchAll(/(?:fsync|fdatasync)\(\d+<([^>]+)>\) = 0/g)].map((m) => m[1]))
      const entries = (fs.readdirSync(dataDir, { recursive: true }) as Array<string>).map((entry) => path.join(dataDir, entry))
      expect(entries.length).toBeGreaterThan(900)
      expect([dataDir, dir, ...entries].filter((entry) => !synced.has(entry))).toEqual([])
    }), 60_000)
  if (!canTrace) describe.skip("syncs at creation: needs strace, allowed to trace, to see them (apt-get install strace)", () => it("skipped", () => {}))

  it.scopedLive("a folder whose creation stopped before its sync (or an older version's) is synced whole at the next start", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "data")
      yield* withDatabase(dataDir, Effect.void)
      expect(fs.existsSync(path.join(dataDir, "synced"))).toBe(true)
      fs.rmSync(path.join(dataDir, "synced"))
      const before = fs.statSync(path.join(dataDir, "PG_VERSION")).ino
      yield* withDatabase(dataDir, Effect.void)
      expect(fs.existsSync(path.join(dataDir, "synced"))).toBe(true)
      // The same database, not a new one.
      expect(fs.statSync(path.join(dataDir, "PG_VERSION")).ino).toBe(before)
    }), 60_000)

  it.scopedLive("a creation that fails says why, in the error's own message (all the operator CLI prints)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      fs.writeFileSync(path.join(dir, "a-file"), "")
      const error = yield* Effect.flip(Layer.build(PgliteClient.layer({ dataDir: path.join(dir, "a-file", "data") })))
      expect(error.message).toMatch(/^PGlite: failed to create the database: exit code 1: \S/)
    }))

  // Its lock on the folder goes with the start; a creator left running would go on writing it.
  it.scopedLive("a start given up takes the creating process with it", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "data")
      const creators = () =>
        fs.readdirSync("/proc").filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
          try {
            return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(dataDir)
          } catch {
            return false
          }
        })
      const start = yield* Effect.fork(Effect.scoped(Layer.build(PgliteClient.layer({ dataDir }))))
      yield* Effect.sleep("500 millis")
      expect(creators()).toHaveLength(1)
      yield* Fiber.interrupt(start)
      yield* Effect.sleep("300 millis")
      expect(creators()).toEqual([])
      expect(fs.existsSync(path.join(dataDir, "PG_VERSION"))).toBe(false)
    }))
})
