/**
 * A `SqlClient` over another whose answers can be lost: a statement whose text holds the marker runs
 * (and commits) on the real database, then fails as if the connection had dropped before its answer
 * came back. For PGlite, where no network can lose an answer (test/support/tcpProxy.ts does it for
 * PostgreSQL).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as Client from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import { Effect, String } from "effect"

export interface LossyClient {
  readonly sql: Client.SqlClient
  /** The answers to statements holding `marker` are lost: the next one only, or all of them. */
  readonly loseAnswersTo: (marker: string, times: "once" | "always") => Effect.Effect<void>
  /** How many answers were lost so far. */
  readonly lost: Effect.Effect<number>
}

export const lossyClient = Effect.gen(function* () {
  const real = yield* Client.SqlClient
  let rule: { marker: string; times: "once" | "always" } | undefined
  let lost = 0
  const losing = (sql: string) => {
    if (rule === undefined || !sql.includes(rule.marker)) return false
    if (rule.times === "once") rule = undefined
    lost += 1
    return true
  }
  // Delegated one by one: PostgreSQL's connections are class instances, whose methods a spread loses.
  const wrap = (connection: Connection): Connection => ({
    execute: (sql, params, transformRows) =>
      losing(sql)
        ? Effect.zipRight(connection.execute(sql, params, transformRows), new SqlError({ message: "the answer was lost" }))
        : connection.execute(sql, params, transformRows),
    executeRaw: (sql, params) => connection.executeRaw(sql, params),
    executeStream: (sql, params, transformRows) => connection.executeStream(sql, params, transformRows),
    executeValues: (sql, params) => connection.executeValues(sql, params),
    executeUnprepared: (sql, params, transformRows) => connection.executeUnprepared(sql, params, transformRows)
  })
  const acquirer = Effect.map(real.reserve, wrap)
  const sql = yield* Client.make({
    acquirer,
    transactionAcquirer: acquirer,
    compiler: makeCompiler(String.camelToSnake),
    transformRows: Statement.defaultTransforms(String.snakeToCamel).array,
    spanAttributes: []
  }).pipe(Effect.provide(Reactivity.layer))
  return {
    sql,
    loseAnswersTo: (marker, times) =>
      Effect.sync(() => {
        rule = { marker, times }
      }),
    lost: Effect.sync(() => lost)
  } satisfies LossyClient
})
