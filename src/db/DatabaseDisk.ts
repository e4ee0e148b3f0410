/**
 * The room left on the disk of the embedded database's folder, for `/readyz`. On a full disk
 * PostgreSQL can no longer write (every describe a 500, uncharged) yet still answers the readiness
 * check's read, which alone would say ready while nothing can be served. A PostgreSQL server's
 * disk is its own, and a database in memory has none: neither is checked.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { statfs } from "node:fs/promises"

export interface DatabaseDiskShape {
  /** Bytes an unprivileged process may still write there; none when not checked or unreadable. */
  readonly freeBytes: Effect.Effect<Option.Option<number>>
}

const notChecked: DatabaseDiskShape = { freeBytes: Effect.succeedNone }

export class DatabaseDisk extends Context.Reference<DatabaseDisk>()("DatabaseDisk", { defaultValue: () => notChecked }) {
  static readonly notChecked = Layer.succeed(DatabaseDisk, notChecked)
}

/** The disk that holds `dataDir`; one that does not say within the readiness check's time is not counted. */
export const folder = (dataDir: string) =>
  Layer.succeed(DatabaseDisk, {
    freeBytes: Effect.tryPromise(() => statfs(dataDir)).pipe(
      Effect.map((disk) => disk.bavail * disk.bsize),
      Effect.timeout("2 seconds"),
      Effect.option
    )
  })

/** One log segment: below it, the next commit may need a segment that cannot be made. */
export const minimumFreeBytes = 16 * 1024 * 1024

export type DiskState = "ok" | "full" | "not checked"

export const diskState = (freeBytes: Option.Option<number>): DiskState =>
  Option.match(freeBytes, {
    onNone: () => "not checked",
    onSome: (bytes) => (bytes < minimumFreeBytes ? "full" : "ok")
  })
