/** `GET /healthz` asked again and again while a load runs: how long each answer took. */
import { sleep } from "./load.ts"

/** One probe: its latency, or undefined when it got no 200 within `timeoutMs`. */
export const probeHealthz = async (url: string, timeoutMs: number): Promise<number | undefined> => {
  const started = performance.now()
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(timeoutMs) })
    await response.arrayBuffer()
    return response.status === 200 ? performance.now() - started : undefined
  } catch {
    return undefined
  }
}

/**
 * Probes every `everyMs` until `stop`, which gives the count and the latencies of the answered.
 * From a process of its own: in the bench's process, which also sends the load, a probe's answer
 * waited for that process's own work (1,000 requests sent at once: 219 ms against 112 ms seen by a
 * separate prober, same burst), and the figure is the server's.
 */
export const probeUntilStopped = (url: string, everyMs: number, timeoutMs: number) => {
  const prober = Bun.spawn({
    cmd: [process.execPath, import.meta.path, url, String(everyMs), String(timeoutMs)],
    stdin: "ignore",
    stdout: "pipe",
    stderr: "inherit"
  })
  // Its output: a line once its first probe is answered, then, when stopped, its result as JSON.
  let text = ""
  let markReady = () => {}
  const ready = new Promise<void>((resolve) => (markReady = resolve))
  const read = (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of prober.stdout) {
      text += decoder.decode(chunk, { stream: true })
      if (text.includes("\n")) markReady()
    }
    markReady()
  })()
  return {
    /** Once the prober runs: a load started before would be missed at its start. */
    ready,
    stop: async (): Promise<{ readonly probes: number; readonly latencies: ReadonlyArray<number> }> => {
      prober.kill("SIGTERM")
      await Promise.all([read, prober.exited])
      const result: unknown = JSON.parse(text.slice(text.indexOf("\n") + 1))
      const probes = typeof result === "object" && result !== null && "probes" in result ? Number(result.probes) : 0
      const latencies = typeof result === "object" && result !== null && "latencies" in result && Array.isArray(result.latencies)
        ? result.latencies.map(Number)
        : []
      return { probes, latencies }
    }
  }
}

// Run as the prober: `bun healthz.ts <url> <everyMs> <timeoutMs>`, until SIGTERM; prints its result as JSON.
if (import.meta.main) {
  const [url = "", everyMs = "100", timeoutMs = "5000"] = process.argv.slice(2)
  let running = true
  process.on("SIGTERM", () => {
    running = false
  })
  const latencies: Array<number> = []
  let probes = 0
  while (running) {
    probes++
    const latency = await probeHealthz(url, Number(timeoutMs))
    if (latency !== undefined) latencies.push(latency)
    if (probes === 1) process.stdout.write("ready\n")
    if (running) await sleep(Number(everyMs))
  }
  process.stdout.write(JSON.stringify({ probes, latencies }))
}
