/**
 * PGlite admits one process per data folder: two opening it at once corrupt it. Whoever opens the
 * folder (the service or the operator CLI) holds an exclusive lock on `DATA_DIR/lock` (fileLock.ts)
 * for as long as it has it open: the kernel's, so it ends with its holder however that ends, and
 * it holds across containers sharing the folder, where every service is PID 1. `DATA_DIR/lock.json`
 * says who holds it; the service also publishes there the local URL and a fresh operator token of
 * its admin route, so the CLI talks to a running service instead of opening the database under it.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as fsSync from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type FileLockUnavailable, tryLock } from "./fileLock.ts"
import { type DataDirUnusable, onDataDirSync } from "./DataDirUnusable.ts"

export const LockInfo = Schema.Struct({
  pid: Schema.Number,
  owner: Schema.Literal("service", "cli"),
  url: Schema.optional(Schema.String),
  operatorToken: Schema.optional(Schema.Redacted(Schema.String)),
  /** Which acquisition wrote it: a process removes, or publishes into, only what it wrote. */
  nonce: Schema.optional(Schema.String)
})
export type LockInfo = typeof LockInfo.Type

/** Another process holds the data folder: the one `lock.json` names, when it could be read. */
export class DataDirBusy extends Schema.TaggedError<DataDirBusy>()("DataDirBusy", { holder: Schema.optional(LockInfo) }) {
  override get message() {
    return this.holder === undefined
      ? "the data folder is in use by another process"
      : `the data folder is in use by the ${this.holder.owner} with pid ${this.holder.pid}`
  }
}

const lockPath = (dataDir: string) => path.join(dataDir, "lock")
const infoPath = (dataDir: string) => path.join(dataDir, "lock.json")

/** The descriptors of the locks this process holds, by folder; their `lock.json` nonces. */
const held = new Map<string, { readonly fd: number; readonly nonce: string }>()

/**
 * The descriptor of this process's lock on `dataDir`: a child process given it holds the lock with
 * this one, and after it should this one die first (PgliteClient.ts, the first start's creation).
 */
export const heldDescriptor = (dataDir: string) => Option.map(Option.fromNullable(held.get(path.resolve(dataDir))), (lock) => lock.fd)

const decodeLock = Schema.decodeOption(Schema.parseJson(LockInfo))

/** A file's text; none if it is missing, and empty if it is there but cannot be read (as unreadable as half-written). */
const readText = (file: string) =>
  Effect.tryPromise({ try: () => fs.readFile(file, "utf8"), catch: (error) => error as NodeJS.ErrnoException }).pipe(
    Effect.map(Option.some),
    Effect.catchAll((error) => Effect.succeed(error.code === "ENOENT" ? Option.none() : Option.some("")))
  )

/** Who holds the folder, if `lock.json` exists and can be read. */
export const read = (dataDir: string) => Effect.map(readText(infoPath(dataDir)), Option.flatMap(decodeLock))

const remove = (file: string) => Effect.promise(() => fs.rm(file, { force: true }))

/**
 * `info` as `lock.json`: written whole to a fresh file beside it (0600, in the 0700 folder), then
 * renamed into place, so a reader sees the old text or the new, whole.
 */
const writeInfo = (dataDir: string, info: LockInfo) =>
  Schema.encode(Schema.parseJson(LockInfo))(info).pipe(
    Effect.orDie,
    Effect.flatMap((json) =>
      Effect.promise(async () => {
        const file = path.join(dataDir, `lock.json.${process.pid}.${crypto.randomUUID()}.tmp`)
        try {
          await fs.writeFile(file, json, { flag: "wx", mode: 0o600 })
          await fs.rename(file, infoPath(dataDir))
        } finally {
          await fs.rm(file, { force: true })
        }
      })
    )
  )

/** The lock file, opened (created 0600 in a 0700 folder if missing); closed with the scope if not kept. */
const openLock = (dataDir: string) =>
  onDataDirSync(dataDir, () => {
    fsSync.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    return fsSync.openSync(lockPath(dataDir), fsSync.constants.O_RDWR | fsSync.constants.O_CREAT, 0o600)
  })

const close = (fd: number) => Effect.sync(() => fsSync.closeSync(fd))

/** The lock, or who holds it: the lock file is closed again unless taken. */
const tryAcquire = (dataDir: string, owner: LockInfo["owner"]): Effect.Effect<LockInfo, DataDirBusy | DataDirUnusable | FileLockUnavailable> =>
  Effect.gen(function* () {
    const fd = yield* openLock(dataDir)
    const taken = yield* Effect.onExit(tryLock(fd), (exit) => exit._tag === "Success" && exit.value === "held" ? Effect.void : close(fd))
    if (taken === "busy") return yield* new DataDirBusy({ holder: Option.getOrUndefined(yield* read(dataDir)) })
    // Held: a `lock.json` already there is what an ended holder left.
    const info: LockInfo = { pid: process.pid, owner, nonce: crypto.randomUUID() }
    held.set(path.resolve(dataDir), { fd, nonce: info.nonce ?? "" })
    yield* writeInfo(dataDir, info)
    return info
  })

/** Removes `lock.json` if it is still this acquisition's, then lets the lock go. */
const release = (dataDir: string, info: LockInfo) =>
  Effect.gen(function* () {
    const current = yield* read(dataDir)
    if (Option.isSome(current) && current.value.nonce === info.nonce) yield* remove(infoPath(dataDir))
    const lock = held.get(path.resolve(dataDir))
    held.delete(path.resolve(dataDir))
    if (lock !== undefined) yield* close(lock.fd)
  })

/**
 * Holds the folder for the scope. It retries while an operator command (which is short) holds
 * it, or a holder that has not said who it is yet; a running service is never waited for.
 */
export const acquire = (dataDir: string, owner: LockInfo["owner"]) =>
  Effect.acquireRelease(
    tryAcquire(dataDir, owner).pipe(
      Effect.retry({
        schedule: Schedule.spaced("100 millis").pipe(Schedule.upTo("30 seconds")),
        while: (refused) => refused._tag === "DataDirBusy" && refused.holder?.owner !== "service"
      })
    ),
    (info) => release(dataDir, info)
  )

/**
 * The service, once listening: where its admin route is and the token it takes, in its own
 * `lock.json`, replaced at once (rename(2)), so a reader sees the one or the other, whole.
 */
export const publish = (dataDir: string, access: { readonly url: string; readonly operatorToken: Redacted.Redacted }) =>
  Effect.gen(function* () {
    const current = yield* read(dataDir)
    const lock = held.get(path.resolve(dataDir))
    if (Option.isNone(current) || lock === undefined || current.value.nonce !== lock.nonce) {
      return yield* Effect.logWarning("the data folder's lock is not this process's: the admin route is not published").pipe(Effect.annotateLogs({ dataDir }))
    }
    yield* writeInfo(dataDir, { ...current.value, ...access })
  })
