/**
 * Requests that arrive together take their first steps a few at a time, each few in a turn of the
 * event loop of its own. Bun calls the handler of every request it has read in one turn of its
 * loop, and each describe ran its first steps there (routing, the key's signature, the first
 * statement's setup): 1,000 arriving at once held the loop some 0.4 s, during which no socket was
 * read, `/healthz` included (docs/BENCHMARKS.md, "1,000 requests at once").
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"

/** Requests let through per turn of the event loop. */
const perTurn = 8

const waiting: Array<() => void> = []
let scheduled = false

const letThrough = () => {
  scheduled = false
  for (const go of waiting.splice(0, perTurn)) go()
  if (waiting.length > 0) schedule()
}

const schedule = () => {
  if (scheduled) return
  scheduled = true
  // After the loop has polled its sockets: what arrived meanwhile is read before the next few go.
  setImmediate(letThrough)
}

/** Waits for this request's turn; a request that goes away while waiting leaves the line. */
export const awaitTurn: Effect.Effect<void> = Effect.async<void>((resume) => {
  const go = () => resume(Effect.void)
  waiting.push(go)
  schedule()
  return Effect.sync(() => {
    const at = waiting.indexOf(go)
    if (at >= 0) waiting.splice(at, 1)
  })
})

/** What a load balancer or an orchestrator asks to know the process is alive: never held. */
const isProbe = (url: string) => url === "/healthz" || url === "/readyz"

/** Middleware: every request but the health probes waits for its turn before anything else. */
export const inTurn = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => (isProbe(request.url) ? app : Effect.zipRight(awaitTurn, app)))
