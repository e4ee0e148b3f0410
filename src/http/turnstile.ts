/**
 * Requests that arrive together start a few at a time, each few in a turn of the event loop of its
 * own. Bun calls the handler of every request it has read in one turn of its loop; a request's fiber
 * started there runs its first steps at once (the platform's runtime, routing, the key's signature,
 * the first statement's setup), and 1,000 arriving at once held the loop some 0.4 s, during which
 * no socket was read, `/healthz` included (docs/BENCHMARKS.md, "1,000 requests at once"). The
 * server (./bunServer.ts) puts each request in line before its fiber exists, so what Bun's turn
 * holds is a queue entry per request.
 */

/** Requests let through per turn of the event loop. */
export const requestsPerTurn = 8

export interface Turnstile {
  /**
   * `go` runs in a later turn of the event loop, after those that entered before it; the function
   * returned takes it out of the line, if it has not run yet (a client that went away).
   */
  readonly enter: (go: () => void) => () => void
  /** Runs every entry still waiting, now and in order: the server is shutting down (./bunServer.ts). */
  readonly flush: () => void
}

export const makeTurnstile = (perTurn: number = requestsPerTurn): Turnstile => {
  const waiting = new Set<() => void>()
  let scheduled = false

  const letThrough = () => {
    scheduled = false
    // Taken out first: what the few start, and any entry made meanwhile, waits for the next turn.
    const few: Array<() => void> = []
    for (const go of waiting) {
      if (few.length === perTurn) break
      few.push(go)
    }
    for (const go of few) waiting.delete(go)
    if (waiting.size > 0) schedule()
    for (const go of few) go()
  }

  const schedule = () => {
    if (scheduled) return
    scheduled = true
    // After the loop has polled its sockets: what arrived meanwhile is read before the next few go.
    setImmediate(letThrough)
  }

  return {
    enter: (go) => {
      // A function of its own per entry, so that the same `go` entered twice is two entries.
      const entry = () => go()
      waiting.add(entry)
      schedule()
      return () => {
        waiting.delete(entry)
      }
    },
    flush: () => {
      const all = [...waiting]
      waiting.clear()
      for (const go of all) go()
    }
  }
}

/** What a load balancer or an orchestrator asks to know the process is alive: never held. */
export const isProbe = (path: string): boolean => path === "/healthz" || path === "/readyz"
