/**
 * CPU time of a child process by thread, from `/proc/<pid>/task/<tid>/stat` (Linux): where a
 * request's work is done. The process's own thread is "JavaScript" (Bun runs the event loop
 * there); other threads are grouped by name without their number ("libvips worker", "Bun Pool",
 * "JITWorker", ...). Threads that ended between two reads are not counted.
 */
import * as fs from "node:fs"

/** Clock ticks per second of `stat`'s utime and stime (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100

export type ThreadCpu = ReadonlyMap<string, number>

/** Milliseconds of CPU so far, by thread group. */
export const threadCpuOf = (pid: number): ThreadCpu => {
  const byGroup = new Map<string, number>()
  let tids: Array<string> = []
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`)
  } catch {
    return byGroup
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
    const group = tid === String(pid) ? "JavaScript" : name.replace(/\s*\d+$/, "")
    byGroup.set(group, (byGroup.get(group) ?? 0) + ms)
  }
  return byGroup
}

/** CPU per request between two reads, by thread group, largest first; groups under 0.05 ms left out. */
export const cpuPerRequest = (before: ThreadCpu, after: ThreadCpu, requests: number): ReadonlyArray<readonly [string, number]> =>
  [...after]
    .map(([group, ms]) => [group, (ms - (before.get(group) ?? 0)) / Math.max(requests, 1)] as const)
    .filter(([, ms]) => ms >= 0.05)
    .sort((a, b) => b[1] - a[1])
