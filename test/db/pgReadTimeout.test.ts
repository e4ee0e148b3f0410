/**
 * A PostgreSQL connection whose statement timed out on the client (`query_timeout`) is never used
 * again (src/db/pgReadTimeout.ts): after a stall, a write made once the database is back is a write
 * made, not one inside a transaction the stall left open on a pooled connection.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted } from "effect"
import * as Database from "../../src/db/Database.ts"
import { postgresUrl } from "../support/database.ts"
import { proxiedFreshPostgres } from "../support/tcpProxy.ts"

describe.skipIf(!postgresUrl)("a statement that times out during a stall of PostgreSQL", () => {
  it.scopedLive("leaves no connection in a transaction: the write after the stall is kept", () =>
    Effect.gen(function* () {
      const { url, proxy, through } = yield* proxiedFreshPostgres(postgresUrl ?? "")
      through.searchParams.set("query_timeout", "400")
      // One connection, so the write after the stall gets the very one the stall touched.
      through.searchParams.set("max", "1")
      const written = Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE kept (n int)`
        yield* proxy.blackhole
        const cut = yield* Effect.exit(sql.withTransaction(sql`INSERT INTO kept VALUES (1)`))
        expect(Exit.isFailure(cut)).toBe(true)
        yield* proxy.restore
        yield* sql`INSERT INTO kept VALUES (2)`.pipe(Effect.retry({ times: 5 }))
      })
      yield* Effect.provide(Effect.scoped(written), Database.layerPostgres(Redacted.make(through.toString())).pipe(Layer.orDie))
      // Read on a connection of its own, once the service's pool is closed.
      const rows = yield* Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT n FROM kept ORDER BY n`),
        Database.layerPostgres(Redacted.make(url)).pipe(Layer.orDie)
      )
      expect(rows).toEqual([{ n: 2 }])
    }), 60_000)
})
