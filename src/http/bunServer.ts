/**
 * @effect/platform's `HttpServer` on `Bun.serve`, made here rather than taken from
 * @effect/platform-bun for what its server cannot do: hold a request back before the request's
 * fiber exists (./turnstile.ts); hold what arrives before the routes are installed rather than
 * answer it `404`; and count every request it has taken until it is answered, those waiting in
 * line included, so that a shutdown waits for them all (./drain.ts). Otherwise it serves as that
 * one does: the app under `HttpApp.toHandled`, one fiber per request in the serving scope's
 * `FiberSet`, interrupted when the client goes away, answered with `HttpServerResponse.toWeb`.
 * Once the routes are withdrawn (the shutdown, past the drain) it takes no more connections.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as BunHttpServer from "@effect/platform-bun/BunHttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { messageOf } from "../services/messageOf.ts"
import { IdleTimer } from "./connections.ts"
import { isProbe, makeTurnstile } from "./turnstile.ts"

/** The port could not be opened: in use, or `HOST` not an address of this machine. */
export class ListenFailed extends Schema.TaggedError<ListenFailed>()("ListenFailed", { address: Schema.String, reason: Schema.String }) {
  override get message() {
    return `could not listen on ${this.address} (HOST, PORT): ${this.reason}`
  }
}

export interface ServeOptions {
  readonly port: number
  readonly hostname: string
  readonly maxRequestBodySize: number
  readonly idleTimeout: number
}

/**
 * How many requests the server has taken and not yet answered, nor seen their client give up:
 * those waiting in line, running, or held until the routes are installed.
 */
export class Unanswered extends Context.Tag("Unanswered")<Unanswered, Effect.Effect<number>>() {}

/**
 * The answer, once the routes are withdrawn, to a request still waiting in line (the drain's
 * deadline passed) or still arriving then (Bun closes the idle connections): retryable, elsewhere.
 */
const unavailable = () =>
  Response.json({ error: "Service Unavailable" }, {
    status: 503,
    headers: { connection: "close", "retry-after": "1", "x-content-type-options": "nosniff" }
  })

/** A request's path and query (Bun's `url` is absolute), to know a probe before its fiber starts. */
const pathOf = (url: string) => {
  const at = url.indexOf("/", url.indexOf("//") + 2)
  return at === -1 ? "/" : url.slice(at)
}

const make = (options: ServeOptions) =>
  Effect.gen(function* () {
    // The port opens before the routes are installed (the server's address is known only then):
    // what arrives in between waits for them.
    let serving: ((request: Request) => Promise<Response>) | undefined
    const early: Array<{ readonly request: Request; readonly resolve: (answer: Promise<Response>) => void }> = []
    let unanswered = 0
    const server = yield* Effect.try({ try: () => Bun.serve({
      ...options,
      fetch: (request) => {
        unanswered++
        let open = true
        const settle = () => {
          if (open) unanswered--
          open = false
        }
        request.signal.addEventListener("abort", settle, { once: true })
        const answer = serving?.(request) ?? new Promise<Response>((resolve) => early.push({ request, resolve }))
        return answer.then((response) => {
          settle()
          return response
        })
      }
    }), catch: (error) => new ListenFailed({ address: `${options.hostname}:${options.port}`, reason: messageOf(error) }) })
    yield* Effect.addFinalizer(() => Effect.sync(() => server.stop()))

    const serve = (app: HttpApp.Default<unknown>, middleware?: HttpMiddleware.HttpMiddleware) =>
      Effect.gen(function* () {
        const runtime = yield* Effect.runtime<never>()
        const runFork = yield* FiberSet.makeRuntime<never>().pipe(
          Effect.provideService(IdleTimer, (request, seconds) => server.timeout(request, seconds))
        )
        // Keyed by Bun's request, which a request modified on its way (`modify`) keeps as its source.
        const answers = new WeakMap<Request, (response: Response) => void>()
        const handled = HttpApp.toHandled(app, (request, response) =>
          Effect.sync(() => {
            const answer = request.source instanceof Request ? answers.get(request.source) : undefined
            answer?.(HttpServerResponse.toWeb(HttpApp.unsafeEjectStreamScope(response), {
              withoutBody: request.method === "HEAD",
              runtime
            }))
          }), middleware)
        const turnstile = makeTurnstile()
        let withdrawn = false
        /** Requests in line answered `unavailable` as the routes were withdrawn. */
        let turnedAway = 0

        const fetch = (request: Request) =>
          new Promise<Response>((resolve) => {
            answers.set(request, resolve)
            const path = pathOf(request.url)
            let fiber: Fiber.RuntimeFiber<void> | undefined
            const start = () => {
              if (withdrawn) {
                turnedAway++
                return resolve(unavailable())
              }
              // `fromWeb` takes the path from the URL as the router expects; Bun alone knows the peer.
              const address = server.requestIP(request)?.address
              const fromWeb = HttpServerRequest.fromWeb(request)
              const serverRequest = address === undefined ? fromWeb : fromWeb.modify({ remoteAddress: address })
              fiber = runFork(Effect.provideService(handled, HttpServerRequest.HttpServerRequest, serverRequest))
            }
            const leave = isProbe(path) ? undefined : turnstile.enter(start)
            if (leave === undefined) start()
            request.signal.addEventListener("abort", () => {
              if (fiber === undefined) leave?.()
              else fiber.unsafeInterruptAsFork(HttpServerError.clientAbortFiberId)
            }, { once: true })
          })

        yield* Effect.acquireRelease(
          Effect.sync(() => {
            serving = fetch
            // One whose client went away meanwhile is not run: nobody reads its answer.
            for (const { request, resolve } of early.splice(0)) {
              resolve(request.signal.aborted ? Promise.resolve(unavailable()) : fetch(request))
            }
          }),
          // Before the serving scope's fibers are interrupted: the drain has waited for what was taken.
          // The answers are made here, without a fiber and so without a request log line: one line says how many.
          () =>
            Effect.suspend(() => {
              withdrawn = true
              serving = () => Promise.resolve(unavailable())
              server.stop()
              turnstile.flush()
              if (turnedAway === 0) return Effect.void
              return Effect.logWarning("requests still waiting in line were answered 503 as the routes were withdrawn").pipe(
                Effect.annotateLogs({ answered503: turnedAway })
              )
            })
        )
      })

    const address: HttpServer.Address = { _tag: "TcpAddress", port: server.port ?? options.port, hostname: server.hostname ?? options.hostname }
    return Context.make(HttpServer.HttpServer, HttpServer.make({ address, serve })).pipe(
      Context.add(Unanswered, Effect.sync(() => unanswered))
    )
  })

/** The server, with what @effect/platform-bun gives the app beside it (its HTTP platform, ETags, file system). */
export const layer = (options: ServeOptions): Layer.Layer<HttpServer.HttpServer | Unanswered | Layer.Layer.Success<typeof BunHttpServer.layerContext>, ListenFailed> =>
  Layer.merge(Layer.scopedContext(make(options)), BunHttpServer.layerContext)
