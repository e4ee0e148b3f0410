/**
 * `/healthz`: the process answers. `/readyz`: it can serve (README, Operations: Health): the database answers,
 * every migration is applied, the embedded database's disk has room, a describer is configured, and it
 * is not shutting down.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { DatabaseDisk, diskState } from "../../db/DatabaseDisk.ts"
import { migrationCount } from "../../db/migrate.ts"
import { Describer } from "../../services/Describer.ts"
import { Drain } from "../drain.ts"

export const healthz = Effect.succeed(HttpServerResponse.unsafeJson({ status: "ok" }))

export const readyz = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const describer = yield* Describer
  const { draining } = yield* Drain
  // Disconnected: a statement stuck on a frozen server, or a connection it waits for, is left to
  // its own time-out rather than waited for by the probe (found by review: no answer in 3 s).
  const applied = yield* sql<{ applied: number }>`SELECT count(*)::int AS applied FROM effect_sql_migrations`.pipe(
    Effect.map(([row]) => row?.applied ?? 0),
    Effect.disconnect,
    Effect.timeout("2 seconds"),
    Effect.option
  )
  const { freeBytes } = yield* DatabaseDisk
  const disk = diskState(yield* freeBytes)
  const checks = {
    database: applied._tag === "Some" ? "ok" : "unreachable",
    migrations: Option.match(applied, { onNone: () => "unknown", onSome: (count) => count >= migrationCount ? "applied" : "pending" }),
    disk,
    // The kind only: the endpoint's address and model are for the operator (start-up log).
    describer: describer.kind,
    shuttingDown: yield* Ref.get(draining)
  }
  const ready = checks.database === "ok" && checks.migrations === "applied" && disk !== "full" && !checks.shuttingDown
  return HttpServerResponse.unsafeJson({ status: ready ? "ready" : "not ready", ...checks }, { status: ready ? 200 : 503 })
})
