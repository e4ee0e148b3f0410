/**
 * Databases for tests: in-memory PGlite always; a fresh PostgreSQL database per use when
 * `TEST_DATABASE_URL` is set (CI sets it), dropped afterwards, so parallel test files never meet.
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import type { SettingsTags } from "../../src/config/Settings.ts"
import * as Database from "../../src/db/Database.ts"
import { testSettingsOrDie, type Variables } from "./config.ts"

export const postgresUrl = process.env.TEST_DATABASE_URL

export interface Backend {
  readonly name: string
  /** The database and the settings (test/support/config.ts), which point at it. */
  readonly layer: Layer.Layer<SqlClient | SettingsTags>
}

/** One statement on the server's maintenance database. */
const admin = (url: string, statement: string) =>
  PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(
    Effect.flatMap((sql) => sql.unsafe(statement)),
    Effect.scoped,
    Effect.provide(Reactivity.layer),
    Effect.orDie
  )

/** A new, empty database on the server of `TEST_DATABASE_URL`; its URL. */
export const freshPostgresUrl = (url: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const name = `test_${crypto.randomUUID().replaceAll("-", "")}`
      yield* admin(url, `CREATE DATABASE ${name}`)
      const fresh = new URL(url)
      fresh.pathname = `/${name}`
      return { name, url: fresh.toString() }
    }),
    ({ name }) => admin(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  )

/** In-memory PGlite, with the settings (environment variables) of the test at hand. */
export const pgliteWith = (variables: Variables = {}): Backend => ({
  name: "PGlite",
  layer: Database.layerPglite(undefined).pipe(Layer.orDie, Layer.merge(testSettingsOrDie(variables)))
})

export const pglite: Backend = pgliteWith()

export const postgres = (url: string): Backend => ({
  name: "PostgreSQL",
  layer: Layer.unwrapScoped(
    Effect.map(freshPostgresUrl(url), (fresh) =>
      Database.layerPostgres(Redacted.make(fresh.url)).pipe(
        Layer.orDie,
        Layer.merge(testSettingsOrDie({ DATABASE_URL: fresh.url }))
      ))
  )
})

/** PGlite, and PostgreSQL when `TEST_DATABASE_URL` is set. */
export const backends: ReadonlyArray<Backend> = postgresUrl ? [pglite, postgres(postgresUrl)] : [pglite]

export const postgresSkipReason = "PostgreSQL: skipped because TEST_DATABASE_URL is not set"
