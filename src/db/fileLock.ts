/**
 * An exclusive `flock(2)` on an open file, through libc (`bun:ffi`; neither Bun nor Node exposes
 * it). The kernel keeps it for the open file description: it ends when the last descriptor of it
 * closes, however its processes end, and it excludes other processes whatever their PID namespace
 * (containers sharing a volume on one host), where process ids and start times cannot be compared.
 */
import { dlopen, FFIType, read } from "bun:ffi"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** The file system or the platform gives no such lock (a network file system without a lock manager). */
export class FileLockUnavailable extends Schema.TaggedError<FileLockUnavailable>()("FileLockUnavailable", {
  reason: Schema.String
}) {
  override get message() {
    return `the data folder cannot be locked (${this.reason}): keep DATA_DIR on a local file system, or set DATABASE_URL`
  }
}

const LOCK_EX = 2
const LOCK_NB = 4
const EINTR = 4

const platform = process.platform === "darwin"
  ? { library: "/usr/lib/libSystem.B.dylib", errnoAt: "__error", wouldBlock: 35 }
  : { library: "libc.so.6", errnoAt: "__errno_location", wouldBlock: 11 }

const loaded = Effect.try({
  try: () =>
    dlopen(platform.library, {
      flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      [platform.errnoAt]: { args: [], returns: FFIType.ptr }
    }).symbols,
  catch: (error) => new FileLockUnavailable({ reason: `libc could not be loaded: ${String(error)}` })
}).pipe(Effect.cached, Effect.runSync)

/** Takes the lock on `fd` if no other open file description holds it: `held`, or `busy` at once. */
export const tryLock = (fd: number): Effect.Effect<"held" | "busy", FileLockUnavailable> =>
  Effect.flatMap(loaded, (libc) =>
    Effect.suspend(() => {
      if (libc.flock(fd, LOCK_EX | LOCK_NB) === 0) return Effect.succeed("held" as const)
      const pointer = libc[platform.errnoAt]?.()
      const errno = pointer === null || pointer === undefined ? -1 : read.i32(pointer, 0)
      if (errno === platform.wouldBlock) return Effect.succeed("busy" as const)
      if (errno === EINTR) return tryLock(fd)
      return Effect.fail(new FileLockUnavailable({ reason: `flock failed with errno ${errno}` }))
    }))
