/**
 * How long a client may hold a connection (README, Slow clients). Bun closes a connection on which
 * no byte has moved, either way, for `idleTimeoutSeconds`: between requests on a kept-alive one,
 * and while a request without a body waits for its answer. A request with a body is not cut off
 * while it waits (a describe waiting on a slow model: test/http/connections.test.ts); its body is
 * read within a deadline of its own, and a body nobody reads is not waited for.
 */
import { HttpApp, HttpMiddleware, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** Short: a kept-alive connection nobody uses costs a file descriptor, and a slow client holds one. */
export const idleTimeoutSeconds = 10

/** The request came with a body that no route read, not even in part. */
const bodyUnread = (request: HttpServerRequest.HttpServerRequest) => {
  const announced = Number(request.headers["content-length"] ?? 0) > 0 || request.headers["transfer-encoding"] !== undefined
  return announced && request.source instanceof Request && !request.source.bodyUsed
}

/**
 * An answer given without reading the body closes the connection: Bun would otherwise read the
 * body to its end before the next request, for as long as a client takes to trickle it.
 */
export const closeAfterUnreadBody = HttpMiddleware.make((app) =>
  Effect.zipRight(
    HttpApp.appendPreResponseHandler((request, response) =>
      Effect.succeed(bodyUnread(request) ? HttpServerResponse.setHeader(response, "connection", "close") : response)
    ),
    app
  )
)
