/**
 * How the embedded database is opened, the same in the service and in the process that creates it
 * (`pgliteCreate.ts`): a folder created with other settings would be reopened with these.
 */
import type { PGliteOptions } from "@electric-sql/pglite"
import * as DataDir from "./DataDir.ts"

/**
 * PostgreSQL's 128 MB of shared buffers are allocated in PGlite's WASM memory, inside this process;
 * this service's tables are small, and 16 MB cut the resident size at start-up by about 115 MiB
 * (275 to 159 MiB for an open database, measured with PGlite 0.5.16 under Bun 1.4.5).
 */
const postgresqlConf = ["shared_buffers = 16MB"]

/** In memory without a folder; with one, its files owner-only (`DataDir.OwnerOnlyNodeFS`). */
export const pgliteOptions = (dataDir: string | undefined): PGliteOptions => ({
  postgresqlconf: postgresqlConf,
  ...(dataDir === undefined ? {} : { fs: new DataDir.OwnerOnlyNodeFS(dataDir) })
})
