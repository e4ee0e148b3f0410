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

/** Probes every `everyMs` until `stop`, which gives the count and the latencies of the answered. */
export const probeUntilStopped = (url: string, everyMs: number, timeoutMs: number) => {
  let running = true
  const latencies: Array<number> = []
  let probes = 0
  const loop = (async () => {
    while (running) {
      probes++
      const latency = await probeHealthz(url, timeoutMs)
      if (latency !== undefined) latencies.push(latency)
      await sleep(everyMs)
    }
  })()
  return {
    stop: async (): Promise<{ readonly probes: number; readonly latencies: ReadonlyArray<number> }> => {
      running = false
      await loop
      return { probes, latencies }
    }
  }
}
