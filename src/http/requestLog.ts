/**
 * One log line per request (README, Operations: Logs): request id (the client's `X-Request-Id` when it is a
 * sane token, otherwise a new one, returned either way), method, route, status, duration, and
 * what the route noted (error kind, model latency, credits after). Never a header value, a key
 * or a body.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as Ref from "effect/Ref"
import { requestIdAnnotation } from "../domain/requestId.ts"
import { requestMetrics } from "../metrics.ts"
import { type RequestFacts, RequestLogFacts } from "../services/RequestFacts.ts"

const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/

const knownRoutes = new Set(["/api/describe", "/api/tokens", "/api/describe/verify", "/api/openapi.json", "/api/docs", "/admin/commands", "/healthz", "/readyz", "/metrics"])

/**
 * The path as logged: a segment over 40 characters (a key or a token pasted into a URL; a batch's
 * id has 36) is its length only, and the whole at most 256 characters: "never a key" (found by
 * review: `/api/tokens/<key>` logged the key).
 */
export const loggedPath = (pathname: string): string => {
  const shown = pathname.split("/").map((segment) => (segment.length > 40 ? `<${segment.length} characters>` : segment)).join("/")
  return shown.length > 256 ? `${shown.slice(0, 255)}…` : shown
}

export const requestLog = HttpMiddleware.make((app) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const given = request.headers["x-request-id"]
    const requestId = given !== undefined && saneRequestId.test(given) ? given : crypto.randomUUID()
    const notes = yield* Ref.make<RequestFacts>({})
    const start = yield* Clock.currentTimeMillis
    const line = (ended: number) =>
      Effect.gen(function* () {
        const facts = yield* Ref.get(notes)
        const status = facts.status ?? ended
        const durationMs = (yield* Clock.currentTimeMillis) - start
        const route = new URL(request.url, "http://localhost").pathname
        // Unknown paths share one label, so scanners cannot blow up the metric series.
        const label = knownRoutes.has(route) ? route : "other"
        const metrics = requestMetrics(label, status)
        yield* Metric.increment(metrics.answered)
        yield* Metric.update(metrics.seconds, durationMs / 1000)
        yield* Effect.logInfo("request").pipe(
          Effect.annotateLogs({ method: request.method, route: loggedPath(route), durationMs, ...facts, status })
        )
      })
    // The response is sent from inside `app`: a pre-response handler is how the id gets on it,
    // with `nosniff` on every answer (an error quoting what the client sent is never read as HTML).
    yield* HttpApp.appendPreResponseHandler((_, response) =>
      Effect.succeed(HttpServerResponse.setHeaders(response, { "x-request-id": requestId, "x-content-type-options": "nosniff" }))
    )
    return yield* app.pipe(
      Effect.provideService(RequestLogFacts, notes),
      // A failure reaches here with the answer the platform gave it inside `app` (a client that
      // went away: 499, held in the cause), or as an interruption of this fiber: the status is the
      // platform's for that cause either way.
      Effect.onExit(Exit.match({
        onSuccess: (response) => line(response.status),
        onFailure: (cause) => line(HttpServerError.causeResponseStripped(cause)[0].status)
      })),
      Effect.annotateLogs(requestIdAnnotation, requestId)
    )
  })
)
