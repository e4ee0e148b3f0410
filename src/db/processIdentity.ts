/**
 * Whether a process still runs, and which one it is: a pid alone is reused after the process ends
 * (and after a reboot), so a lock names its holder by pid and start (DataDirLock.ts).
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs/promises"

/** Signal 0 checks without signalling; EPERM means it runs as another user. */
export const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The start of process `pid` as `LockInfo.startedAt` has it; none without `/proc` or once it has ended. */
export const processStart = (pid: number) =>
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
