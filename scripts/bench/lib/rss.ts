/** Resident memory of a child process, from `/proc/<pid>/status` (Linux). */
import * as fs from "node:fs"

export interface Memory {
  /** Resident now. */
  readonly rssBytes: number
  /** Peak resident since start or the last `resetPeak`. */
  readonly hwmBytes: number
}

const field = (status: string, name: string): number => {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)
  return match?.[1] === undefined ? Number.NaN : Number(match[1]) * 1024
}

export const memoryOf = (pid: number): Memory => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  return { rssBytes: field(status, "VmRSS"), hwmBytes: field(status, "VmHWM") }
}

/** Resets the peak (VmHWM) to the current resident size (`echo 5 > /proc/<pid>/clear_refs`). */
export const resetPeak = (pid: number): boolean => {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, "5")
    return true
  } catch {
    return false
  }
}

/** Samples VmRSS every `everyMs` until `stop`, which gives the largest sample. */
export const sampleRss = (pid: number, everyMs = 10) => {
  let max = 0
  const timer = setInterval(() => {
    try {
      max = Math.max(max, memoryOf(pid).rssBytes)
    } catch {
      // the process is gone: the last sample stands
    }
  }, everyMs)
  return {
    stop: (): number => {
      clearInterval(timer)
      return max
    }
  }
}
