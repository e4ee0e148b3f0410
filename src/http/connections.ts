/**
 * How long a client may hold a connection (README, Slow clients). Bun closes a connection on which
 * no byte has moved, either way, for `idleTimeoutSeconds`: between requests on a kept-alive one,
 * and, for some requests, while the request waits for its answer. A request whose work has
 * deadlines of its own (a describe: UPLOAD_TIMEOUT_MS, MODEL_TIMEOUT_MS) lifts it while that work
 * runs, so a slow model is not cut off, and puts it back before it answers. Small bodies are read
 * within a deadline of their own; a body nobody reads is read and dropped when it is small and
 * comes at once, and otherwise not waited for.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { limits } from "../domain/limits.ts"

/** Short: a kept-alive connection nobody uses costs a file descriptor, and a slow client holds one. */
export const idleTimeoutSeconds = 10

/**
 * Sets the idle timer of a request's connection: the `Bun.Server`'s `timeout`, which the server
 * (./bunServer.ts) gives its requests; where there is no socket (a request made in a test), there
 * is no timer to set.
 */
export class IdleTimer extends Context.Reference<IdleTimer>()("IdleTimer", {
  defaultValue: (): (request: Request, seconds: number) => void => () => {}
}) {}

const setIdleTimeout = (request: HttpServerRequest.HttpServerRequest, seconds: number) =>
  Effect.flatMap(IdleTimer, (setTimer) =>
    Effect.sync(() => {
      if (request.source instanceof Request) setTimer(request.source, seconds)
    }))

/** Runs `work` with no idle timer on the request's connection, and restores the timer as it ends. */
export const withoutIdleTimeout = (request: HttpServerRequest.HttpServerRequest) =>
<A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(setIdleTimeout(request, 0), () => work, () => setIdleTimeout(request, idleTimeoutSeconds))

/** The request came with a body that no route read, not even in part. */
const bodyUnread = (request: HttpServerRequest.HttpServerRequest) => {
  const announced = Number(request.headers["content-length"] ?? 0) > 0 || request.headers["transfer-encoding"] !== undefined
  return announced && request.source instanceof Request && !request.source.bodyUsed
}

/** The large drop's limit (`dropLimits`). */
const large = { maxBytes: limits.bodyBytes, timeout: Duration.seconds(5), lingerBytes: 1024 * 1024 } as const

/**
 * A body no route read is read and dropped before the answer: within these limits. Clients that
 * write the whole body before they read the answer (Node's fetch, curl past `Expect: 100-continue`)
 * otherwise meet a connection closed on unread bytes, whose reset takes the answer with it: Node's
 * fetch saw `EPIPE` instead of a 401 for 16 of 40 uploads of 140 bytes with a wrong key, and for
 * every upload over 1 MiB while only small bodies were dropped (found by review).
 * - small: whatever else is being dropped;
 * - large: up to a body the describe would take (§8, 11 MB), so that a shop whose credit has run
 *   out gets `no credit left`, not a network error it would retry; while `largeBudgetBytes` has
 *   room, as Bun holds what it reads of a body until it is collected (40 at once, with no key,
 *   took 560 MB before this bound; found by review). Without room, as a large body over the small
 *   bound: not read, the connection closed.
 * A 413's body is never read.
 */
export const dropLimits = {
  small: { maxBytes: 1024 * 1024, timeout: Duration.seconds(1), lingerBytes: 0 },
  large,
  // Two chunked bodies at once, each with its linger (a second one no longer fit: found by review).
  largeBudgetBytes: 2 * (large.maxBytes + large.lingerBytes),
  /**
   * Past a large limit the body is not dropped, yet read on while more keeps coming (each piece
   * within `lingerQuiet` of the last), up to its `lingerBytes` more (held from the budget too): a
   * body that ends or stalls just past the limit is then read to where it stops, and the answer's
   * close finds nothing unread, which the kernel would answer with a reset that can discard the
   * answer before the client reads it (the likely loss, in CI, of a 401 to a chunked body stalled
   * 16 bytes past the limit and short of its end). Small drops, run without the budget, do not.
   */
  lingerQuiet: Duration.millis(250)
} as const

type DropLimit = typeof dropLimits.small | typeof dropLimits.large

/** Whether the body came whole within `limit` (read and dropped), so the connection may stay open. */
const readAndDrop = (request: HttpServerRequest.HttpServerRequest, limit: DropLimit) =>
  Effect.scoped(Effect.flatMap(Stream.toPull(request.stream), (pull) => {
    const readOn = (read: number): Effect.Effect<boolean> => {
      const over = read > limit.maxBytes
      if (read > limit.maxBytes + limit.lingerBytes) return Effect.succeed(false)
      const next = over ? Effect.timeoutFail(pull, { duration: dropLimits.lingerQuiet, onTimeout: () => Option.none() }) : pull
      return Effect.matchEffect(next, {
        // The end (or, past the limit, a pause): whole if within it; a broken body is not whole.
        onFailure: Option.match({ onNone: () => Effect.succeed(!over), onSome: () => Effect.succeed(false) }),
        onSuccess: (chunks) => readOn(Chunk.reduce(chunks, read, (sum, chunk) => sum + chunk.length))
      })
    }
    return readOn(0)
  })).pipe(
    // The answer's handlers run uninterruptibly: the deadline must be able to cut the read.
    Effect.interruptible,
    Effect.timeoutTo({ duration: limit.timeout, onTimeout: () => false, onSuccess: (whole) => whole })
  )

/** The unread body dropped within `dropLimits`, its large bodies within `budget` (bytes). */
const droppedWhole = (budget: Effect.Semaphore) => (request: HttpServerRequest.HttpServerRequest): Effect.Effect<boolean> => {
  const announced = request.headers["content-length"]
  const size = announced === undefined ? undefined : Number(announced)
  if (size !== undefined && size <= dropLimits.small.maxBytes) return readAndDrop(request, dropLimits.small)
  if (size !== undefined && !(size <= dropLimits.large.maxBytes)) return Effect.succeed(false)
  return budget.withPermitsIfAvailable(size ?? large.maxBytes + large.lingerBytes)(readAndDrop(request, large)).pipe(
    Effect.flatMap(Option.match({
      onSome: Effect.succeed,
      // Of unknown size (chunked), as much as a small body may be.
      onNone: () => size === undefined ? readAndDrop(request, dropLimits.small) : Effect.succeed(false)
    }))
  )
}

/**
 * An answer given without reading the body reads and drops it first when it comes at once within
 * `dropLimits`; otherwise the answer closes the connection: Bun would read the body to its end
 * before the next request, for as long as a client takes to trickle it. A 413 reads nothing: it
 * says the body is too large to be read.
 */
export const closeAfterUnreadBody = HttpMiddleware.make((app) => {
  const drop = droppedWhole(Effect.unsafeMakeSemaphore(dropLimits.largeBudgetBytes))
  return Effect.zipRight(
    HttpApp.appendPreResponseHandler((request, response) =>
      bodyUnread(request)
        ? Effect.map(response.status === 413 ? Effect.succeed(false) : drop(request), (whole) => whole ? response : HttpServerResponse.setHeader(response, "connection", "close"))
        : Effect.succeed(response)
    ),
    app
  )
})

/** Why a small body was not read to its end. */
export type BodyCutOff = "tooLarge" | "timedOut" | "broken"

/**
 * A small body (a form, a command), whole, read up to `maxBytes` and within `timeout`: a client
 * trickling it would otherwise hold its connection for as long as it likes. `refuse` makes the
 * caller's error; the answer to it should close the connection, as the body was not read to its end.
 */
export const readSmallBody = <E>(
  request: HttpServerRequest.HttpServerRequest,
  limits: { readonly maxBytes: number; readonly timeout: Duration.Duration },
  refuse: (reason: BodyCutOff) => E
): Effect.Effect<Uint8Array, E> =>
  Number(request.headers["content-length"] ?? 0) > limits.maxBytes
    ? Effect.fail(refuse("tooLarge"))
    : Stream.runFoldEffect(request.stream, new Uint8Array(0), (read, chunk) => {
      if (read.length + chunk.length > limits.maxBytes) return Effect.fail(refuse("tooLarge"))
      const next = new Uint8Array(read.length + chunk.length)
      next.set(read)
      next.set(chunk, read.length)
      return Effect.succeed(next)
    }).pipe(
      Effect.catchTag("RequestError", () => Effect.fail(refuse("broken"))),
      Effect.timeoutFail({ duration: limits.timeout, onTimeout: () => refuse("timedOut") })
    )
