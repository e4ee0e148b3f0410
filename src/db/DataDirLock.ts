/**
 * PGlite admits one process per data folder: two opening it at once corrupt it. Whoever opens the
 * folder (the service or the operator CLI) first creates `DATA_DIR/lock.json` exclusively; the
 * service also publishes there the local URL and a fresh operator token of its admin route, so
 * the CLI talks to a running service instead of opening the database under it.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { isRunning, processStart } from "./processIdentity.ts"

export const LockInfo = Schema.Struct({
  pid: Schema.Number,
  /**
   * When that process started, `<boot id>/<clock ticks after boot>` (Linux `/proc`): after a crash
   * and a reboot the pid may belong to another process, which has another start.
   */
  startedAt: Schema.optional(Schema.String),
  owner: Schema.Literal("service", "cli"),
  url: Schema.optional(Schema.String),
  operatorToken: Schema.optional(Schema.Redacted(Schema.String)),
  /** Which acquisition wrote it: a lock is released, or published into, only by the one that took it. */
  nonce: Schema.optional(Schema.String)
})
export type LockInfo = typeof LockInfo.Type

/** Another live process holds the data folder. */
export class DataDirBusy extends Schema.TaggedError<DataDirBusy>()("DataDirBusy", { holder: LockInfo }) {
  override get message() {
    return `the data folder is in use by the ${this.holder.owner} with pid ${this.holder.pid}`
  }
}

const lockPath = (dataDir: string) => path.join(dataDir, "lock.json")

/** The nonces of the locks this process holds or is taking: a lock with our own pid is ours only if listed here. */
const ours = new Set<string>()

/** Whether `holder` is a lock this process took (or is taking) and has not released. */
const isOurs = (holder: LockInfo) => holder.pid === process.pid && holder.nonce !== undefined && ours.has(holder.nonce)

/**
 * Whether the holder is still at work: its pid runs and, where `/proc` tells, it is the very process
 * that wrote the lock. A lock without a start (an earlier version's) is judged by its pid alone. A
 * lock with this process's own pid is at work only if this process holds it (an earlier run of the
 * same pid left it otherwise).
 */
const isHeld = (holder: LockInfo) =>
  Effect.gen(function* () {
    if (holder.pid === process.pid) return isOurs(holder)
    if (!isRunning(holder.pid)) return false
    if (holder.startedAt === undefined) return true
    return Option.match(yield* processStart(holder.pid), {
      onNone: () => isRunning(holder.pid),
      onSome: (started) => started === holder.startedAt
    })
  })

/** This process, as a new lock names it. */
const self = (owner: LockInfo["owner"]) =>
  Effect.map(processStart(process.pid), (started): LockInfo => ({
    pid: process.pid,
    startedAt: Option.getOrUndefined(started),
    owner,
    nonce: crypto.randomUUID()
  }))

const decodeLock = Schema.decodeOption(Schema.parseJson(LockInfo))

/** A file's text; none if it is missing, and empty if it is there but cannot be read (as unreadable as half-written). */
const readText = (file: string) =>
  Effect.tryPromise({ try: () => fs.readFile(file, "utf8"), catch: (error) => error as NodeJS.ErrnoException }).pipe(
    Effect.map(Option.some),
    Effect.catchAll((error) => Effect.succeed(error.code === "ENOENT" ? Option.none() : Option.some("")))
  )

/** The current holder, if the lock file exists and can be read. */
export const read = (dataDir: string) => Effect.map(readText(lockPath(dataDir)), Option.flatMap(decodeLock))

/** Runs a file operation; `false` when it fails with one of `expected` (another process came first). */
const attempt = (operation: () => Promise<void>, ...expected: ReadonlyArray<string>) =>
  Effect.tryPromise({ try: operation, catch: (error) => error as NodeJS.ErrnoException }).pipe(
    Effect.as(true),
    Effect.catchIf((error) => expected.includes(error.code ?? ""), () => Effect.succeed(false)),
    Effect.orDie
  )

const remove = (file: string) => Effect.promise(() => fs.rm(file, { force: true }))

/**
 * `info` written whole to a fresh file beside the lock (0600, in the 0700 folder), removed with the
 * scope: linked or renamed into place, the lock is never seen half-written.
 */
const staged = (dataDir: string, info: LockInfo) =>
  Effect.acquireRelease(
    Schema.encode(Schema.parseJson(LockInfo))(info).pipe(
      Effect.orDie,
      Effect.flatMap((json) =>
        Effect.promise(async () => {
          await fs.mkdir(dataDir, { recursive: true, mode: 0o700 })
          const file = path.join(dataDir, `lock.json.${process.pid}.${crypto.randomUUID()}.tmp`)
          await fs.writeFile(file, json, { flag: "wx", mode: 0o600 })
          return file
        })
      )
    ),
    remove
  )

/** A take-over that crashed halfway leaves its claim; after this long, others may claim again. */
const abandonedClaimMillis = 10_000

/**
 * Removes the stale lock whose text is `seen`, if it is still there. Exactly one contender wins the
 * claim, an exclusive hard link named after that very text; only the winner removes the lock, and
 * only if the claim is that lock (another may have replaced it meanwhile, with another text).
 */
const removeStale = (lock: string, seen: string) =>
  Effect.gen(function* () {
    const claim = `${lock}.stale-${createHash("sha256").update(seen).digest("hex").slice(0, 16)}`
    if (!(yield* attempt(() => fs.link(lock, claim), "EEXIST", "ENOENT"))) {
      const claimed = yield* Effect.tryPromise(() => fs.stat(claim)).pipe(Effect.option)
      const now = yield* Clock.currentTimeMillis
      if (Option.isSome(claimed) && now - claimed.value.ctimeMs > abandonedClaimMillis) yield* remove(claim)
      return yield* Effect.sleep("10 millis")
    }
    if (Option.contains(yield* readText(claim), seen)) yield* remove(lock)
    yield* remove(claim)
  })

const tryAcquire = (dataDir: string, info: LockInfo): Effect.Effect<void, DataDirBusy> =>
  Effect.gen(function* () {
    const lock = lockPath(dataDir)
    const file = yield* staged(dataDir, info)
    while (true) {
      // Created only whole, and only if there is none: link(2) does not replace.
      if (yield* attempt(() => fs.link(file, lock), "EEXIST")) return
      const seen = yield* readText(lock)
      if (Option.isNone(seen)) continue // released meanwhile
      const holder = decodeLock(seen.value)
      if (Option.isSome(holder) && (yield* isHeld(holder.value))) return yield* new DataDirBusy({ holder: holder.value })
      // Stale (its process is gone, or its pid now another's) or unreadable (an older version's crash mid-write).
      yield* removeStale(lock, seen.value)
    }
  }).pipe(Effect.scoped)

/** Removes the lock if it is still this process's own: one taken over meanwhile is another's. */
const release = (dataDir: string, info: LockInfo) =>
  Effect.gen(function* () {
    const current = yield* read(dataDir)
    if (Option.isSome(current) && current.value.nonce === info.nonce) yield* remove(lockPath(dataDir))
    else yield* Effect.logWarning("the data folder's lock is no longer this process's: left in place", { dataDir })
  }).pipe(Effect.ensuring(Effect.sync(() => ours.delete(info.nonce ?? ""))))

/**
 * Holds the folder for the scope. It retries while an operator command (which is short)
 * holds it; a running service is never waited for.
 */
export const acquire = (dataDir: string, owner: LockInfo["owner"]) =>
  Effect.acquireRelease(
    self(owner).pipe(
      // Ours before the lock file exists, so that no fiber of this process judges it stale.
      Effect.tap((info) => Effect.sync(() => ours.add(info.nonce ?? ""))),
      Effect.flatMap((info) =>
        tryAcquire(dataDir, info).pipe(
          Effect.retry({
            schedule: Schedule.spaced("100 millis").pipe(Schedule.upTo("30 seconds")),
            while: (busy) => busy.holder.owner === "cli"
          }),
          Effect.tapError(() => Effect.sync(() => ours.delete(info.nonce ?? ""))),
          Effect.as(info)
        )
      )
    ),
    (info) => release(dataDir, info)
  )

/**
 * The service, once listening: where its admin route is and the token it takes, in its own lock.
 * The new text replaces the old at once (rename(2)), so a reader sees the one or the other, whole.
 */
export const publish = (dataDir: string, access: { readonly url: string; readonly operatorToken: Redacted.Redacted }) =>
  Effect.gen(function* () {
    const current = yield* read(dataDir)
    if (Option.isNone(current) || !isOurs(current.value)) {
      return yield* Effect.logWarning("the data folder's lock is not this process's: the admin route is not published", { dataDir })
    }
    const file = yield* staged(dataDir, { ...current.value, ...access })
    yield* Effect.promise(() => fs.rename(file, lockPath(dataDir)))
  }).pipe(Effect.scoped)
