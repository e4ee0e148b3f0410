/**
 * The one database layer: PostgreSQL through @effect/sql-pg when `DATABASE_URL` is set, otherwise
 * PGlite persisted in `DATA_DIR`. Both get the same migrations, run at start-up.
 */
import type * as Migrator from "@effect/sql/Migrator"
import * as Client from "@effect/sql/SqlClient"
import type { SqlClient } from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Pg from "pg"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as String from "effect/String"
import type { ConfigError } from "effect/ConfigError"
import { AppConfig } from "../config/AppConfig.ts"
import type * as DataDir from "./DataDir.ts"
import * as DatabaseMarker from "./DatabaseMarker.ts"
import { DatabaseDisk, folder } from "./DatabaseDisk.ts"
import * as DataDirLock from "./DataDirLock.ts"
import type { DataDirUnusable } from "./DataDirUnusable.ts"
import type { FileLockUnavailable } from "./fileLock.ts"
import { endOnReadTimeout } from "./pgReadTimeout.ts"
import { migrate } from "./migrate.ts"
import { prepareStatements } from "./pgPrepared.ts"

/**
 * Replicas starting together on one PostgreSQL take turns: even the Migrator's own bookkeeping
 * table cannot be created by two sessions at once. The later one then finds nothing to do.
 */
const migrateExclusively = Effect.gen(function* () {
  const sql = yield* Client.SqlClient
  const session = yield* sql.reserve
  const lock = (fn: string) => session.executeRaw(`SELECT ${fn}(hashtextextended('image-metadata-migrations', 0))`, [])
  yield* Effect.acquireRelease(lock("pg_advisory_lock"), () => Effect.ignore(lock("pg_advisory_unlock")))
  yield* migrate
}).pipe(Effect.scoped)

export type DatabaseError =
  | SqlError
  | Migrator.MigrationError
  | ConfigError
  | DataDirLock.DataDirBusy
  | DataDirUnusable
  | FileLockUnavailable
  | DataDir.DataDirNotOwned
  | DataDir.DataDirNotDatabase

/** A client with the schema migrated. */
const withMigrations = <E, R>(
  client: Layer.Layer<SqlClient, E, R>,
  migration: Effect.Effect<unknown, SqlError | Migrator.MigrationError, SqlClient> = migrate
) =>
  Layer.effectDiscard(migration).pipe(Layer.provideMerge(client))

/**
 * A statement that gets no answer in this time fails (a 500, no credit used) instead of hanging the
 * request for the whole of a network outage; the operator's own `query_timeout` in the URL wins.
 */
const queryTimeoutMs = 5_000

/**
 * The server gives up on a statement before the client does (`statement_timeout`, a fifth earlier),
 * so a statement the client has stopped waiting for cannot go on to commit once it has been
 * answered with a 500 (README, "Credits and the database"). The operator's own value wins.
 */
const withTimeouts = (url: Redacted.Redacted) => {
  const value = Redacted.value(url)
  if (!URL.canParse(value)) return url
  const parsed = new URL(value)
  if (!parsed.searchParams.has("query_timeout")) parsed.searchParams.set("query_timeout", `${queryTimeoutMs}`)
  const queryTimeout = Number(parsed.searchParams.get("query_timeout"))
  if (!parsed.searchParams.has("statement_timeout") && Number.isSafeInteger(queryTimeout) && queryTimeout > 0) {
    parsed.searchParams.set("statement_timeout", `${Math.ceil(queryTimeout * 0.8)}`)
  }
  return Redacted.make(parsed.toString())
}

/**
 * `prepared_statements=false` in the URL: every statement unnamed, for a pooler between the service
 * and PostgreSQL that cannot keep a session's prepared statements (PgBouncer before 1.21 in
 * transaction mode). Taken out of the URL, which the driver would not understand.
 */
const preparedStatementsOf = (url: Redacted.Redacted) => {
  const value = Redacted.value(url)
  if (!URL.canParse(value)) return { url, prepared: true }
  const parsed = new URL(value)
  const setting = parsed.searchParams.get("prepared_statements")
  parsed.searchParams.delete("prepared_statements")
  return { url: setting === null ? url : Redacted.make(parsed.toString()), prepared: setting !== "false" }
}

/** How long the first connection may take; a start that cannot reach PostgreSQL fails after it. */
const connectTimeout = Duration.seconds(5)

/** `@effect/sql-pg`'s own pool, as `PgClient.make` opens and closes it, with statements prepared. */
const pool = (url: Redacted.Redacted) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const { prepared, url: connection } = preparedStatementsOf(url)
      const pool = new Pg.Pool({
        connectionString: Redacted.value(withTimeouts(connection)),
        connectionTimeoutMillis: Duration.toMillis(connectTimeout),
        application_name: "@effect/sql-pg"
      })
      pool.on("error", () => {})
      pool.on("connect", (client) => {
        endOnReadTimeout(client)
        if (prepared) prepareStatements(client)
      })
      yield* Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        catch: (cause) => new SqlError({ cause, message: "could not connect to the database of DATABASE_URL" })
      }).pipe(
        Effect.timeoutFail({ duration: connectTimeout, onTimeout: () => new SqlError({ cause: new Error("Connection timed out"), message: "could not connect to the database of DATABASE_URL" }) }),
        Effect.tapError(() => Effect.promise(() => pool.end()))
      )
      return pool
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
  )

export const layerPostgres = (url: Redacted.Redacted) =>
  withMigrations(PgClient.layerFromPool({
    acquire: pool(url),
    transformQueryNames: String.camelToSnake,
    transformResultNames: String.snakeToCamel
  }), migrateExclusively).pipe(Layer.merge(DatabaseDisk.notChecked))

/**
 * In memory without a folder; with one, the folder is checked to be this user's (refused before it
 * is touched otherwise), held by `owner` for the layer's lifetime, and made owner-only. PGlite's
 * modules are loaded only here: a service on PostgreSQL does without them (docs/BENCHMARKS.md,
 * memory at rest). `/readyz` watches the folder's disk (DatabaseDisk.ts).
 */
export const layerPglite = (dataDir: string | undefined, owner: DataDirLock.LockInfo["owner"] = "service") =>
  Layer.unwrapEffect(
    Effect.map(
      Effect.promise(() => Promise.all([import("./PgliteClient.ts"), import("./DataDir.ts")])),
      ([PgliteClient, DataDir]) => {
        const client = withMigrations(PgliteClient.layer({ dataDir }))
        if (dataDir === undefined) return Layer.merge(client, DatabaseDisk.notChecked)
        const held = DataDir.claim(dataDir).pipe(
          Effect.zipRight(DataDirLock.acquire(dataDir, owner)),
          Effect.zipRight(DataDir.repair(dataDir))
        )
        return Layer.provideMerge(client, Layer.scopedDiscard(held)).pipe(Layer.merge(folder(dataDir)))
      }
    )
  )

/** Chosen by configuration; the service leaves in `DATA_DIR` which one it uses, for the operator CLI. */
export const layer: Layer.Layer<SqlClient | DatabaseDisk, DatabaseError, AppConfig> = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Option.match(config.databaseUrl, {
      onSome: (url) => layerPostgres(url).pipe(Layer.tap(() => DatabaseMarker.write(config.dataDir, url))),
      onNone: () => layerPglite(config.dataDir).pipe(Layer.tap(() => DatabaseMarker.remove(config.dataDir)))
    })
  )
)
