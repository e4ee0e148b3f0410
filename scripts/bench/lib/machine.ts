/** The machine a bench ran on, printed with every figure. */
import * as fs from "node:fs"
import * as os from "node:os"

export interface Machine {
  readonly date: string
  readonly cpu: string
  readonly cores: number
  readonly memoryGiB: number
  readonly bun: string
  readonly kernel: string
  /** 1, 5 and 15 minute load averages when the bench started. */
  readonly load: ReadonlyArray<number>
}

const cpuModel = (): string => {
  try {
    const line = fs.readFileSync("/proc/cpuinfo", "utf8").split("\n").find((l) => l.startsWith("model name"))
    const model = line?.slice(line.indexOf(":") + 1).trim()
    if (model !== undefined && model !== "") return model
  } catch {
    // not Linux: fall through
  }
  return os.cpus()[0]?.model ?? "unknown"
}

export const machine = (): Machine => ({
  date: new Date().toISOString(),
  cpu: cpuModel(),
  cores: os.cpus().length,
  memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
  bun: Bun.version,
  kernel: `${os.type()} ${os.release()}`,
  load: os.loadavg().map((n) => Math.round(n * 100) / 100)
})

export const loadNow = (): string => os.loadavg().map((n) => n.toFixed(2)).join(", ")

/** A block to print at the top of a bench's output. */
export const describeMachine = (m: Machine): string =>
  [
    `date:    ${m.date}`,
    `machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB RAM, ${m.kernel}`,
    `bun:     ${m.bun}`,
    `load:    ${m.load.join(", ")} (1, 5, 15 min) at start${m.load[0] !== undefined && m.load[0] > 0.5 ? "; other work was running on this machine" : ""}`
  ].join("\n")
