/**
 * `DATA_DIR/database.json`: a service on PostgreSQL says so in its data folder, so that an operator
 * CLI run there without `DATABASE_URL` refuses instead of writing to a new embedded database the
 * service never reads (README, Operator CLI). A service on the embedded database removes it.
 * Best effort both ways: a read-only folder must not stop the service.
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { redactUrl } from "../config/redact.ts"

export const Marker = Schema.Struct({
  database: Schema.Literal("postgresql"),
  /** Without its password. */
  url: Schema.String
})
export type Marker = typeof Marker.Type

const markerPath = (dataDir: string) => path.join(dataDir, "database.json")

export const read = (dataDir: string) =>
  Effect.tryPromise(() => fs.readFile(markerPath(dataDir), "utf8")).pipe(
    Effect.flatMap(Schema.decode(Schema.parseJson(Marker))),
    Effect.option
  )

export const write = (dataDir: string, url: Redacted.Redacted) =>
  Schema.encode(Schema.parseJson(Marker))({ database: "postgresql", url: redactUrl(Redacted.value(url)) }).pipe(
    Effect.flatMap((json) =>
      Effect.tryPromise(async () => {
        // Owner-only, as the embedded database's folder is (README, Data folder).
        await fs.mkdir(dataDir, { recursive: true, mode: 0o700 })
        await fs.writeFile(markerPath(dataDir), json, { mode: 0o600 })
      })
    ),
    Effect.catchAll((cause) => Effect.logDebug("could not leave the database marker").pipe(Effect.annotateLogs({ dataDir, cause: String(cause) })))
  )

export const remove = (dataDir: string) =>
  Effect.promise(() => fs.rm(markerPath(dataDir), { force: true }).catch(() => undefined))

/** Whether the embedded database exists in `dataDir` (PostgreSQL's own `PG_VERSION` file). */
export const embeddedExists = (dataDir: string) =>
  Effect.promise(() => fs.access(path.join(dataDir, "PG_VERSION")).then(() => true, () => false))

