/**
 * `bun test/support/panicThenQuery.ts <folder>`: PGlite in <folder> through the service's client,
 * a sync that fails once (EIO), so PostgreSQL PANICs; then one more statement. Prints one JSON line
 * per step: `{ step, message, stopped }`. A child process of test/db/durability.test.ts, which
 * kills it if it does not end: a statement sent to a PANICked PGlite spins, and no timer fires.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import { PGlite } from "@electric-sql/pglite"
import { Effect, Layer } from "effect"
import { type Sync, syncToDisk } from "../../src/db/DataDir.ts"
import { clientOn, hasStopped } from "../../src/db/PgliteClient.ts"
import { pgliteOptions } from "../../src/db/pgliteOptions.ts"

const dataDir = process.argv[2] ?? "data"
let failing = false
const sync: Sync = (fd) => {
  if (failing) throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" })
  syncToDisk(fd)
}
const db = await PGlite.create(pgliteOptions(dataDir, sync))
const report = (step: string, message: string) =>
  process.stdout.write(`${JSON.stringify({ step, message, stopped: hasStopped(db) })}\n`)

const steps = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE credits (id int PRIMARY KEY)`
  failing = true
  report("insert", (yield* Effect.flip(sql`INSERT INTO credits VALUES (1)`)).message)
  failing = false
  report("later", (yield* Effect.flip(sql`SELECT count(*) FROM credits`)).message)
})

await Effect.runPromise(steps.pipe(
  Effect.provide(Layer.scoped(SqlClient.SqlClient, clientOn(db, dataDir)).pipe(Layer.provide(Reactivity.layer))),
  Effect.scoped
))
process.exit(0)
