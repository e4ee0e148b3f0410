/**
 * Bytes a process takes off its sockets, counted with strace (`recvfrom`/`recvmsg` return values)
 * while attached: what the server really read, whatever the kernel buffered for it. Optional:
 * without strace, or when attaching is not allowed, `traceSocketReads` gives undefined.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export interface SocketReadTrace {
  /** Detaches; the bytes returned by every socket read since attaching. */
  readonly stop: () => Promise<number>
}

export const traceSocketReads = async (pid: number): Promise<SocketReadTrace | undefined> => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bench-strace-")), "trace.txt")
  let child: Bun.Subprocess<"ignore", "ignore", "pipe">
  try {
    child = Bun.spawn({
      cmd: ["strace", "-f", "-qq", "-e", "trace=recvfrom,recvmsg", "-p", String(pid), "-o", file],
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe"
    })
  } catch {
    return undefined
  }
  // strace prints nothing once attached (-qq): give it time, and check it is still there.
  await sleep(500)
  if (child.exitCode !== null) return undefined
  return {
    stop: async () => {
      child.kill("SIGINT")
      const ended = await Promise.race([child.exited.then(() => true), sleep(5_000).then(() => false)])
      if (!ended) child.kill("SIGKILL")
      const lines = fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n") : []
      fs.rmSync(path.dirname(file), { recursive: true, force: true })
      let total = 0
      for (const line of lines) {
        if (!/recv(from|msg)/.test(line)) continue
        const result = /= (\d+)$/.exec(line.trim())
        if (result?.[1] !== undefined) total += Number(result[1])
      }
      return total
    }
  }
}
