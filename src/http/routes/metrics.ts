/**
 * `GET /metrics` in Prometheus text format (README, Operations: Metrics). Guarded: with `METRICS_TOKEN` set, a
 * scraper sends it as a Bearer token; without, only this machine (loopback) may read it. A request
 * through a reverse proxy on this machine comes from loopback too, on behalf of anyone: one that
 * carries a proxy's header is never taken for local. The router answers this route for `/Metrics`,
 * `/metrics/` and `/metrics;x` too: `deploy/nginx.conf` refuses every such spelling.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { AppConfig } from "../../config/AppConfig.ts"
import { errorResponse } from "../errors.ts"
import { renderPrometheus } from "../prometheus.ts"
import { sameSecret } from "../sameSecret.ts"

const loopback = (address: string) => address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.")

const proxied = (headers: Readonly<Record<string, string | undefined>>) =>
  headers["x-forwarded-for"] !== undefined || headers["forwarded"] !== undefined

export const metrics = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { metricsToken } = yield* AppConfig
  const allowed = Option.match(metricsToken, {
    onNone: () => !proxied(request.headers) && Option.exists(request.remoteAddress, loopback),
    onSome: (token) => sameSecret(request.headers.authorization ?? "", `Bearer ${Redacted.value(token)}`)
  })
  if (!allowed) return errorResponse(401, "Unauthorized")
  return HttpServerResponse.text(renderPrometheus(yield* Metric.snapshot), {
    contentType: "text/plain; version=0.0.4; charset=utf-8"
  })
})
