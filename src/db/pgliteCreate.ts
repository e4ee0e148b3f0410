/**
 * `bun src/db/pgliteCreate.ts <folder>`: creates the embedded database in an empty folder, runs the
 * migrations on it, then exits. Run as a child process by `PgliteClient` on a first start:
 * PostgreSQL's initdb inside PGlite peaks near 1 GB and leaves about 400 MB of WASM memory and
 * garbage, and the migrations fill PostgreSQL's caches (a first start held 12 to 16 MiB more than a
 * later one), which the service would otherwise keep for its whole life; in a process of its own
 * all of it goes back at the exit. Should this process stop between the two, the service runs
 * the migrations that are left as on any start.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import { PGlite } from "@electric-sql/pglite"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { syncFolderOnce } from "./DataDir.ts"
import { migrate } from "./migrate.ts"
import { clientOn, hasStopped } from "./PgliteClient.ts"
import { pgliteOptions } from "./pgliteOptions.ts"

const dataDir = process.argv[2]
if (dataDir === undefined) {
  process.stderr.write("usage: bun src/db/pgliteCreate.ts <folder>\n")
  process.exit(2)
}
const db = await PGlite.create(pgliteOptions(dataDir))
const client = Layer.scoped(SqlClient.SqlClient, clientOn(db, dataDir)).pipe(Layer.provide(Reactivity.layer))
const migrated = await Effect.runPromiseExit(migrate.pipe(Effect.provide(client)))
// One that stopped on a PANIC would never close (PgliteClient.ts); the exit below ends it.
if (!hasStopped(db)) await db.close()
if (Exit.isFailure(migrated)) {
  process.stderr.write(`the migrations failed: ${Cause.pretty(migrated.cause, { renderErrorCause: true })}\n`)
  process.exit(1)
}
// PostgreSQL's initdb inside PGlite writes the folder without syncing it; the service starts on it
// only once all of it is on disk.
await syncFolderOnce(dataDir)
