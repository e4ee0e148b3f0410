/**
 * On PostgreSQL, a statement with values is prepared once per session (src/db/pgPrepared.ts): the
 * server parses and plans it on its first run only. Texts made at run time do not grow a session
 * past its bound; a plan whose table changed is made again; `prepared_statements=false` in the URL
 * turns it off for a pooler that cannot keep them.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted, type Scope } from "effect"
import * as Database from "../../src/db/Database.ts"
import { maxPrepared } from "../../src/db/preparedStatements.ts"
import { freshPostgresUrl, postgresSkipReason, postgresUrl } from "../support/database.ts"

/** `test` on a fresh database of the test server, opened as the service opens PostgreSQL. */
const onFreshDatabase = <A, E>(test: Effect.Effect<A, E, SqlClient.SqlClient | Scope.Scope>, query = "") =>
  Effect.gen(function* () {
    const fresh = yield* freshPostgresUrl(postgresUrl ?? "")
    return yield* Effect.provide(Effect.scoped(test), Database.layerPostgres(Redacted.make(`${fresh.url}${query}`)).pipe(Layer.orDie))
  }).pipe(Effect.scoped)

/** One session of the pool, and what it holds prepared: text and runs of each. */
const session = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const connection = yield* sql.reserve
  const run = (text: string, params: ReadonlyArray<unknown>) => connection.execute(text, params, undefined)
  const prepared = Effect.map(
    connection.executeRaw("SELECT statement, generic_plans + custom_plans AS runs FROM pg_prepared_statements ORDER BY prepare_time", []),
    (result) => (result as { rows: Array<{ statement: string; runs: string }> }).rows.map((row) => [row.statement, Number(row.runs)] as const)
  )
  return { run, prepared }
})

describe.skipIf(!postgresUrl)("PostgreSQL sessions keep the service's statements prepared", () => {
  it.effect("a statement run three times is parsed and planned once, then only bound and run", () =>
    onFreshDatabase(Effect.gen(function* () {
      const { prepared, run } = yield* session
      for (const n of [1, 2, 3]) expect(yield* run("SELECT $1::int AS n", [n])).toEqual([{ n }])
      expect(yield* prepared).toEqual([["SELECT $1::int AS n", 3]])
    })))

  it.effect("a statement without values is not prepared (migrations, transactions' commands)", () =>
    onFreshDatabase(Effect.gen(function* () {
      const { prepared, run } = yield* session
      yield* run("SELECT 1 AS n", [])
      expect(yield* prepared).toEqual([])
    })))

  it.effect(`texts made at run time: at most ${maxPrepared} kept, the oldest closed; a closed text runs again`, () =>
    onFreshDatabase(Effect.gen(function* () {
      const { prepared, run } = yield* session
      const texts = Array.from({ length: maxPrepared + 50 }, (_, i) => `SELECT $1::int + ${i} AS n`)
      for (const text of texts) yield* run(text, [1])
      const kept = (yield* prepared).map(([statement]) => statement)
      expect(kept).toEqual(texts.slice(50))
      expect(yield* run(texts[0] ?? "", [1])).toEqual([{ n: 1 }])
      expect((yield* prepared).length).toBe(maxPrepared)
    })))

  it.effect(`statements queued together on one session: a text closed to make room still runs, and a burst stays within ${maxPrepared}`, () =>
    onFreshDatabase(Effect.gen(function* () {
      const { prepared, run } = yield* session
      const texts = Array.from({ length: maxPrepared }, (_, i) => `SELECT $1::int + ${i} AS n`)
      for (const text of texts) yield* run(text, [1])
      // Queued behind a slow one: the oldest text, and a new text that closes it to make room.
      const answers = yield* Effect.all([
        run("SELECT pg_sleep($1::float) IS NULL AS slept", [0.1]),
        run(texts[0] ?? "", [1]),
        run("SELECT $1::int AS fresh", [7])
      ], { concurrency: "unbounded" })
      expect(answers).toEqual([[{ slept: false }], [{ n: 1 }], [{ fresh: 7 }]])
      const burst = Array.from({ length: 300 }, (_, i) => `SELECT $1::int * ${i} AS n`)
      const results = yield* Effect.forEach(burst, (text) => run(text, [2]), { concurrency: "unbounded" })
      expect(results.map((rows) => rows[0])).toEqual(burst.map((_, i) => ({ n: 2 * i })))
      expect((yield* prepared).length).toBeLessThanOrEqual(maxPrepared)
    })))

  it.effect("a table whose columns changed under a prepared SELECT *: prepared again, the answer has the new column", () =>
    onFreshDatabase(Effect.gen(function* () {
      const { run } = yield* session
      yield* run("CREATE TABLE things (id int PRIMARY KEY)", [])
      yield* run("INSERT INTO things VALUES (1)", [])
      expect(yield* run("SELECT * FROM things WHERE id = $1", [1])).toEqual([{ id: 1 }])
      // Another replica's migration.
      yield* run("ALTER TABLE things ADD COLUMN colour text DEFAULT 'red'", [])
      expect(yield* run("SELECT * FROM things WHERE id = $1", [1])).toEqual([{ id: 1, colour: "red" }])
    })))

  it.effect("prepared_statements=false in DATABASE_URL: nothing prepared, and the parameter does not reach PostgreSQL", () =>
    onFreshDatabase(Effect.gen(function* () {
      const { prepared, run } = yield* session
      for (const n of [1, 2]) expect(yield* run("SELECT $1::int AS n", [n])).toEqual([{ n }])
      expect(yield* prepared).toEqual([])
    }), "?prepared_statements=false"))
})

if (!postgresUrl) describe.skip(postgresSkipReason, () => it("prepared statements on PostgreSQL", () => {}))
