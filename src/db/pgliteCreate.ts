/**
 * `bun src/db/pgliteCreate.ts <folder>`: creates the embedded database in an empty folder, then
 * exits. Run as a child process by `PgliteClient` on a first start: PostgreSQL's initdb inside
 * PGlite peaks near 1 GB and leaves about 400 MB of WASM memory and garbage that the service would
 * otherwise keep for its whole life; in a process of its own all of it goes back at the exit.
 */
import { PGlite } from "@electric-sql/pglite"
import { pgliteOptions } from "./pgliteOptions.ts"

const dataDir = process.argv[2]
if (dataDir === undefined) {
  process.stderr.write("usage: bun src/db/pgliteCreate.ts <folder>\n")
  process.exit(2)
}
const db = await PGlite.create(pgliteOptions(dataDir))
await db.close()
