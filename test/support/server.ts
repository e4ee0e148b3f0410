/** The real router on a real Bun socket (random port), with an `HttpClient` pointed at it. */
import { HttpClient, HttpClientRequest, HttpClientResponse, HttpServer } from "@effect/platform"
import { BunHttpServer } from "@effect/platform-bun"
import { Effect, Layer, Option, Redacted } from "effect"
import { OperatorToken } from "../../src/http/routes/admin.ts"
import { router } from "../../src/http/router.ts"

export const operatorToken = "operator-test-token"

export const serverWith = <ROut, E, RIn>(services: Layer.Layer<ROut, E, RIn>) =>
  HttpServer.serve(router).pipe(
    Layer.provideMerge(BunHttpServer.layerTest),
    Layer.provideMerge(services),
    Layer.provide(Layer.succeed(OperatorToken, Option.some(Redacted.make(operatorToken))))
  )

/** Status, content type and parsed JSON body: what a client of the API sees. */
export const seen = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(response.json, (body) => ({
    status: response.status,
    contentType: response.headers["content-type"],
    body
  }))

export const getTokens = (key?: string) =>
  HttpClient.HttpClient.pipe(
    Effect.flatMap((client) =>
      client.execute(
        HttpClientRequest.get("/api/tokens").pipe(
          key === undefined ? (r) => r : HttpClientRequest.setHeader("authorization", `Bearer ${key}`)
        )
      )
    ),
    Effect.flatMap(seen),
    Effect.orDie
  )
