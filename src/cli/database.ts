/**
 * Which database an operator command goes to (README, Operator CLI). The CLI never writes where
 * the service does not read: it says on stderr which database it opened, creates a new embedded
 * one only when asked (`--init`), and refuses the embedded one of a folder whose service said it
 * uses PostgreSQL.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as path from "node:path"
import { AppConfig } from "../config/AppConfig.ts"
import { redactUrl } from "../config/redact.ts"
import * as DatabaseMarker from "../db/DatabaseMarker.ts"

export class CliError extends Data.TaggedError("CliError")<{ readonly message: string }> {}

export type Target =
  | { readonly _tag: "Postgres"; readonly url: Redacted.Redacted }
  | { readonly _tag: "Embedded"; readonly dataDir: string; readonly created: boolean }

export const chooseDatabase = (init: boolean) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (Option.isSome(config.databaseUrl)) return { _tag: "Postgres", url: config.databaseUrl.value } satisfies Target
    const folder = path.resolve(config.dataDir)
    const marker = yield* DatabaseMarker.read(config.dataDir)
    if (Option.isSome(marker)) {
      return yield* new CliError({
        message: `the service of DATA_DIR ${folder} uses PostgreSQL (${marker.value.url}, says its database.json) ` +
          "and DATABASE_URL is not set: set it to that database (or remove database.json if the service no longer uses PostgreSQL)"
      })
    }
    const exists = yield* DatabaseMarker.embeddedExists(config.dataDir)
    if (!exists && !init) {
      return yield* new CliError({
        message: `no database in ${folder}: start the service once (it creates it), set DATABASE_URL if the service ` +
          "uses PostgreSQL, set DATA_DIR to the service's folder, or pass --init to create a new embedded database there"
      })
    }
    return { _tag: "Embedded", dataDir: config.dataDir, created: !exists } satisfies Target
  })

/** The line the CLI prints on stderr before running a command. */
export const describeTarget = (target: Target, via?: { readonly pid: number }) =>
  target._tag === "Postgres"
    ? `database: PostgreSQL ${redactUrl(Redacted.value(target.url))}`
    : `database: embedded, ${path.resolve(target.dataDir)}${
      via ? `, through the running service (pid ${via.pid})` : target.created ? " (new, --init)" : ""
    }`
