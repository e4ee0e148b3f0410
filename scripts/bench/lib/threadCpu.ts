/**
 * CPU time of a child process by thread, from `/proc/<pid>/task/<tid>/stat` (Linux): where a
 * request's work is done. The process's own thread is "JavaScript" (Bun runs the event loop
 * there); other threads are grouped by name without their number ("libvips worker", "Bun Pool",
 * "JITWorker", ...). Each thread's time is the difference of its own two reads, then added to its
 * group's: a thread that ended between two reads is not counted (its time since the first read is
 * lost), and one that started between them counts in full.
 */
import * as fs from "node:fs"

/** Clock ticks per second of `stat`'s utime and stime (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100

/** Milliseconds of CPU so far of each thread, by thread id, with the thread's group. */
export type ThreadCpu = ReadonlyMap<string, { readonly group: string; readonly ms: number }>

/** Milliseconds of CPU so far, by thread. */
export const threadCpuOf = (pid: number): ThreadCpu => {
  const byThread = new Map<string, { readonly group: string; readonly ms: number }>()
  let tids: Array<string> = []
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`)
  } catch {
    return byThread
  }
  for (const tid of tids) {
    let stat: string
    try {
      stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")
    } catch {
      continue
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))
    // Fields after the name: state is the first; utime and stime the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond
    byThread.set(tid, { group: tid === String(pid) ? "JavaScript" : name.replace(/\s*\d+$/, ""), ms })
  }
  return byThread
}

/** CPU milliseconds between two reads, by thread group: each thread against its own first read. */
export const cpuBetween = (before: ThreadCpu, after: ThreadCpu): Map<string, number> => {
  const byGroup = new Map<string, number>()
  for (const [tid, { group, ms }] of after) byGroup.set(group, (byGroup.get(group) ?? 0) + ms - (before.get(tid)?.ms ?? 0))
  return byGroup
}

/** CPU per request of `byGroup` (`cpuBetween`'s), largest first; groups under 0.05 ms left out. */
export const cpuPerRequest = (byGroup: ReadonlyMap<string, number>, requests: number): ReadonlyArray<readonly [string, number]> =>
  [...byGroup]
    .map(([group, ms]) => [group, ms / Math.max(requests, 1)] as const)
    .filter(([, ms]) => ms >= 0.05)
    .sort((a, b) => b[1] - a[1])
