/**
 * How the embedded database is opened, the same in the service and in the process that creates it
 * (`pgliteCreate.ts`): a folder created with other settings would be reopened with these.
 */
import { PGlite, type PGliteOptions } from "@electric-sql/pglite"
import * as DataDir from "./DataDir.ts"

/**
 * PostgreSQL's 128 MB of shared buffers are allocated in PGlite's WASM memory, inside this process,
 * and touched as the database opens: each MB of them is a MB resident for the life of the process.
 * The pages they cache are also in the operating system's cache (PGlite reads its files through it),
 * so a miss costs a read from memory: with 300,000 usage rows, the key check, reservation and
 * settlement took the same time with 8 MB as with 16 (within the run-to-run noise of +-20%), and
 * 8 MB are 8 MiB less at rest (measured with PGlite 0.5.16 under Bun 1.4.5).
 *
 * PGlite is one session, but shared memory (process slots, the lock table of 64 locks per
 * connection) is sized for PostgreSQL's default of 100 connections: 10 take 5 MiB less, and their
 * 640 locks are more than every migration at once on an empty folder takes (it runs with 2).
 *
 * The write-ahead log is synced with `fsync`: PGlite's `fdatasync` does nothing, its `fsync` reaches
 * the disk through `DataDir.DataDirNodeFS`.
 */
const postgresqlConf = ["shared_buffers = 8MB", "max_connections = 10", "wal_sync_method = fsync"]

/**
 * PGlite's own start-up flags but `-F` (`fsync = off`): with a folder, a commit is on disk before it
 * is answered, and a crash of the machine leaves a database PostgreSQL can recover. In memory there
 * is no disk to wait for.
 */
const durableStartParams = PGlite.defaultStartParams.filter((flag) => flag !== "-F")

/** In memory without a folder; with one, its files owner-only and synced (`DataDir.DataDirNodeFS`). */
export const pgliteOptions = (dataDir: string | undefined, sync?: DataDir.Sync): PGliteOptions => ({
  postgresqlconf: postgresqlConf,
  ...(dataDir === undefined ? {} : { fs: new DataDir.DataDirNodeFS(dataDir, sync), startParams: durableStartParams })
})
