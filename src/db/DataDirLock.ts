/**
 * PGlite admits one process per data folder: two opening it at once corrupt it. Whoever opens the
 * folder (the service or the operator CLI) first creates `DATA_DIR/lock.json` exclusively; the
 * service also publishes there the local URL and a fresh operator token of its admin route, so
 * the CLI talks to a running service instead of opening the database under it.
 */
import { Effect, Option, type Redacted, Schedule, Schema } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"

export const LockInfo = Schema.Struct({
  pid: Schema.Number,
  /**
   * When that process started, `<boot id>/<clock ticks after boot>` (Linux `/proc`): after a crash
   * and a reboot the pid may belong to another process, which has another start.
   */
  startedAt: Schema.optional(Schema.String),
  owner: Schema.Literal("service", "cli"),
  url: Schema.optional(Schema.String),
  operatorToken: Schema.optional(Schema.Redacted(Schema.String))
})
export type LockInfo = typeof LockInfo.Type

/** Another live process holds the data folder. */
export class DataDirBusy extends Schema.TaggedError<DataDirBusy>()("DataDirBusy", { holder: LockInfo }) {
  override get message() {
    return `the data folder is in use by the ${this.holder.owner} with pid ${this.holder.pid}`
  }
}

const lockPath = (dataDir: string) => path.join(dataDir, "lock.json")

const isRunning = (pid: number) => {
  if (pid === process.pid) return false // a lock left by an earlier run of this very process id
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The start of process `pid` as `LockInfo.startedAt` has it; none without `/proc` or once it has ended. */
const processStart = (pid: number) =>
  Effect.tryPromise(async () => {
    const [stat, bootId] = await Promise.all([
      fs.readFile(`/proc/${pid}/stat`, "utf8"),
      fs.readFile("/proc/sys/kernel/random/boot_id", "utf8")
    ])
    // The command name, in parentheses, may hold spaces; the start time is the 22nd field (proc(5)).
    const ticks = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
    if (ticks === undefined) throw new Error("unexpected /proc/<pid>/stat")
    return `${bootId.trim()}/${ticks}`
  }).pipe(Effect.option)

/**
 * Whether the holder is still at work: its pid runs and, where `/proc` tells, it is the very process
 * that wrote the lock. A lock without a start (an earlier version's) is judged by its pid alone.
 */
const isHeld = (holder: LockInfo) =>
  Effect.gen(function* () {
    if (!isRunning(holder.pid)) return false
    if (holder.startedAt === undefined) return true
    return Option.match(yield* processStart(holder.pid), {
      onNone: () => isRunning(holder.pid),
      onSome: (started) => started === holder.startedAt
    })
  })

/** This process, as its lock names it. */
const self = (owner: LockInfo["owner"]) =>
  Effect.map(processStart(process.pid), (started): LockInfo => ({ pid: process.pid, startedAt: Option.getOrUndefined(started), owner }))

/** The current holder, if the lock file exists and can be read. */
export const read = (dataDir: string) =>
  Effect.tryPromise(() => fs.readFile(lockPath(dataDir), "utf8")).pipe(
    Effect.flatMap(Schema.decode(Schema.parseJson(LockInfo))),
    Effect.option
  )

const write = (dataDir: string, info: LockInfo, flag: "wx" | "w") =>
  Effect.promise(() => fs.mkdir(dataDir, { recursive: true, mode: 0o700 })).pipe(
    Effect.zipRight(Schema.encode(Schema.parseJson(LockInfo))(info)),
    Effect.flatMap((json) => Effect.tryPromise(() => fs.writeFile(lockPath(dataDir), json, { flag, mode: 0o600 }))),
    Effect.isSuccess
  )

const tryAcquire = (dataDir: string, info: LockInfo): Effect.Effect<void, DataDirBusy> =>
  Effect.gen(function* () {
    if (yield* write(dataDir, info, "wx")) return
    const holder = yield* read(dataDir)
    if (Option.isSome(holder) && (yield* isHeld(holder.value))) return yield* new DataDirBusy({ holder: holder.value })
    // Stale (its process is gone, or its pid now another's) or unreadable (a crash mid-write): take it over.
    yield* Effect.promise(() => fs.rm(lockPath(dataDir), { force: true }))
    if (!(yield* write(dataDir, info, "wx"))) return yield* tryAcquire(dataDir, info)
  })

/**
 * Holds the folder for the scope. `waitForCli` retries while an operator command (which is short)
 * holds it; a running service is never waited for.
 */
export const acquire = (dataDir: string, owner: LockInfo["owner"]) =>
  Effect.acquireRelease(
    self(owner).pipe(
      Effect.flatMap((info) => tryAcquire(dataDir, info)),
      Effect.retry({
        schedule: Schedule.spaced("100 millis").pipe(Schedule.upTo("30 seconds")),
        while: (busy) => busy.holder.owner === "cli"
      })
    ),
    () => Effect.promise(() => fs.rm(lockPath(dataDir), { force: true }))
  )

/** The service, once listening: where its admin route is and the token it takes. */
export const publish = (dataDir: string, access: { readonly url: string; readonly operatorToken: Redacted.Redacted }) =>
  Effect.flatMap(self("service"), (info) => write(dataDir, { ...info, ...access }, "w"))
