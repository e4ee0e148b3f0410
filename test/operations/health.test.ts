import { describe, expect, it, layer } from "@effect/vitest"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, Layer, Option, Ref } from "effect"
import { DatabaseDisk, minimumFreeBytes } from "../../src/db/DatabaseDisk.ts"
import { pglite, pgliteWith } from "../support/database.ts"
import { customer, jpeg, postDescribe, serverPort } from "../support/describe.ts"
import { metricsSpellings } from "../support/metricsPaths.ts"
import { requestHead, sendRaw } from "../support/rawHttp.ts"
import { getTokens, seen, serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const get = (path: string, token?: string) =>
  Effect.flatMap(HttpClient.HttpClient, (client) =>
    client.execute(HttpClientRequest.get(path).pipe(token ? HttpClientRequest.bearerToken(token) : (r) => r))
  ).pipe(Effect.orDie)

layer(serverWith(servicesOn(pglite)), { excludeTestServices: true })("health and metrics", (it) => {
  it.effect("/healthz answers while the process lives; /readyz reports database, migrations and describer", () =>
    Effect.gen(function* () {
      expect(yield* Effect.flatMap(get("/healthz"), seen)).toEqual({ status: 200, contentType: "application/json", body: { status: "ok" } })
      expect(yield* Effect.flatMap(get("/readyz"), seen)).toEqual({
        status: 200,
        contentType: "application/json",
        body: { status: "ready", database: "ok", migrations: "applied", disk: "not checked", describer: "scripted", shuttingDown: false }
      })
    }))

  it.effect("/metrics exposes requests by route and status, latencies and credits charged, to loopback", () =>
    Effect.gen(function* () {
      const c = yield* customer(2)
      expect((yield* postDescribe({ image: jpeg }, c.token)).status).toBe(200)
      yield* getTokens("not-a-key")
      const response = yield* get("/metrics")
      expect(response.status).toBe(200)
      expect(response.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8")
      const text = yield* response.text.pipe(Effect.orDie)
      const sample = (series: string) => Number(new RegExp(`^${series.replace(/[.*+?^${}()|[\]\\/"]/g, "\\$&")} (\\S+)$`, "m").exec(text)?.[1])
      expect(sample('http_requests_total{route="/api/describe",status="200"}')).toBeGreaterThanOrEqual(1)
      expect(sample('http_requests_total{route="/api/tokens",status="401"}')).toBeGreaterThanOrEqual(1)
      expect(sample("credits_charged_total")).toBeGreaterThanOrEqual(1)
      expect(sample('http_request_duration_seconds_bucket{route="/api/describe",le="+Inf"}')).toBeGreaterThanOrEqual(1)
      expect(sample("image_prepare_duration_seconds_count")).toBeGreaterThanOrEqual(1)
      expect(sample("image_bytes_in_total")).toBeGreaterThanOrEqual(jpeg.length)
      expect(text).toContain("# TYPE model_duration_seconds histogram")
      expect(text).toContain("# TYPE credit_reservations_open gauge")
    }))
})

describe("/readyz on a full disk", () => {
  it.live("says not ready while the embedded database's disk has less than one log segment free, and ready again once it has room", () =>
    Effect.gen(function* () {
      const free = yield* Ref.make(0)
      const disk = Layer.succeed(DatabaseDisk, { freeBytes: Effect.map(Ref.get(free), Option.some) })
      const readyz = Effect.flatMap(get("/readyz"), seen)
      const body = (status: string, diskState: string) =>
        ({ status, database: "ok", migrations: "applied", disk: diskState, describer: "scripted", shuttingDown: false })
      yield* Effect.gen(function* () {
        expect(yield* readyz).toEqual({ status: 503, contentType: "application/json", body: body("not ready", "full") })
        yield* Ref.set(free, minimumFreeBytes - 1)
        expect((yield* readyz).status).toBe(503)
        yield* Ref.set(free, minimumFreeBytes)
        expect(yield* readyz).toEqual({ status: 200, contentType: "application/json", body: body("ready", "ok") })
      }).pipe(Effect.provide(serverWith(Layer.merge(servicesOn(pglite), disk))))
    }))
})

/** What the router does with `path`, sent byte for byte (an HTTP client would tidy it): the status. */
const rawGet = (path: string, headers: Readonly<Record<string, string>> = {}) =>
  Effect.flatMap(serverPort, (port) => sendRaw({ port, head: requestHead("GET", path, { connection: "close", ...headers }) })).pipe(
    Effect.map((response) => response.status),
    Effect.orDie
  )

layer(serverWith(servicesOn(pglite)), { excludeTestServices: true })("/metrics without METRICS_TOKEN", (it) => {
  it.effect("every spelling the router takes for /metrics has the same guard: open to loopback", () =>
    Effect.gen(function* () {
      for (const path of metricsSpellings) expect([path, yield* rawGet(path)]).toEqual([path, 200])
      expect(yield* rawGet("/metricsx")).toBe(404)
    }))

  it.effect("a proxied request (X-Forwarded-For or Forwarded) is never taken for loopback, under any spelling", () =>
    Effect.gen(function* () {
      for (const path of metricsSpellings) {
        expect([path, yield* rawGet(path, { "x-forwarded-for": "203.0.113.7" })]).toEqual([path, 401])
        expect([path, yield* rawGet(path, { "x-forwarded-for": "127.0.0.1" })]).toEqual([path, 401])
        expect([path, yield* rawGet(path, { forwarded: "for=203.0.113.7" })]).toEqual([path, 401])
      }
    }))
})

describe("/metrics with METRICS_TOKEN", () => {
  it.live("refuses a scraper without the token, even on loopback", () =>
    Effect.gen(function* () {
      expect((yield* get("/metrics")).status).toBe(401)
      expect((yield* get("/metrics", "wrong")).status).toBe(401)
      expect((yield* get("/metrics", "scrape-secret")).status).toBe(200)
      // The same guard under every spelling, proxied or not.
      for (const path of metricsSpellings) {
        expect([path, yield* rawGet(path)]).toEqual([path, 401])
        expect([path, yield* rawGet(path, { authorization: "Bearer scrape-secret", "x-forwarded-for": "203.0.113.7" })]).toEqual([path, 200])
      }
    }).pipe(Effect.provide(serverWith(servicesOn(pgliteWith({ METRICS_TOKEN: "scrape-secret" }))))))
})
