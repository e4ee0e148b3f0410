/** The real router on a real Bun socket (random port), with an `HttpClient` pointed at it. */
import { FetchHttpClient, HttpClient, HttpClientRequest, HttpClientResponse, HttpServer } from "@effect/platform"
import { Effect, Layer, Option, Redacted } from "effect"
import * as BunServer from "../../src/http/bunServer.ts"
import { OperatorToken } from "../../src/http/routes/admin.ts"
import { serveOptions, serveRoutes } from "../../src/http/server.ts"

export const operatorToken = "operator-test-token"

/** The production server options on a random port, and a client pointed at it. */
const testServer = HttpServer.layerTestClient.pipe(
  Layer.provide(FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { keepalive: false })))),
  Layer.provideMerge(BunServer.layer({ port: 0, hostname: "127.0.0.1", ...serveOptions }))
)

/** The app over `services`; the admin route takes `operator` (none: closed, as on PostgreSQL). */
export const serverWith = <ROut, E, RIn>(
  services: Layer.Layer<ROut, E, RIn>,
  operator: Option.Option<Redacted.Redacted> = Option.some(Redacted.make(operatorToken))
) =>
  serveRoutes.pipe(
    Layer.provideMerge(testServer),
    Layer.provideMerge(services),
    Layer.provide(Layer.succeed(OperatorToken, operator))
  )

/** Status, content type and parsed JSON body: what a client of the API sees. */
export const seen = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(response.json, (body) => ({
    status: response.status,
    contentType: response.headers["content-type"],
    body
  }))

/** `GET /api/tokens`, or its compatibility twin `/api/describe/verify`, which answers alike. */
export const tokensPaths = ["/api/tokens", "/api/describe/verify"] as const

export const getTokens = (key?: string, path: (typeof tokensPaths)[number] = "/api/tokens") =>
  HttpClient.HttpClient.pipe(
    Effect.flatMap((client) =>
      client.execute(
        HttpClientRequest.get(path).pipe(
          key === undefined ? (r) => r : HttpClientRequest.setHeader("authorization", `Bearer ${key}`)
        )
      )
    ),
    Effect.flatMap(seen),
    Effect.orDie
  )
