/**
 * `DATA_DIR` cannot be made or opened (a file, a read-only file system, no permission): said as
 * such at start-up, not as the file system call's bare error (found by review).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as path from "node:path"
import { messageOf } from "../services/messageOf.ts"

export class DataDirUnusable extends Schema.TaggedError<DataDirUnusable>()("DataDirUnusable", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `the data folder ${this.path} cannot be used (${this.reason}): set DATA_DIR to a writable folder of this user's`
  }
}

const unusable = (dataDir: string, error: unknown) => new DataDirUnusable({ path: path.resolve(dataDir), reason: messageOf(error) })

/** A file system call on the data folder, its failure a `DataDirUnusable`. */
export const onDataDir = <A>(dataDir: string, call: () => Promise<A>) =>
  Effect.tryPromise({ try: call, catch: (error) => unusable(dataDir, error) })

/** The same, for a call that blocks. */
export const onDataDirSync = <A>(dataDir: string, call: () => A) => Effect.try({ try: call, catch: (error) => unusable(dataDir, error) })
