/**
 * `GET /metrics` in Prometheus text format (README, Operations: Metrics). Guarded: with `METRICS_TOKEN` set, a
 * scraper sends it as a Bearer token; without, only loopback may read it (../localRequest.ts).
 * The router answers this route for `/Metrics`, `/metrics/` and `/metrics;x` too:
 * `deploy/nginx.conf` refuses every such spelling.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { AppConfig } from "../../config/AppConfig.ts"
import { errorResponse } from "../errors.ts"
import { isLoopbackRequest } from "../localRequest.ts"
import { renderPrometheus } from "../prometheus.ts"
import { sameSecret } from "../sameSecret.ts"

export const metrics = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { metricsToken } = yield* AppConfig
  const allowed = Option.match(metricsToken, {
    onNone: () => isLoopbackRequest(request),
    onSome: (token) => sameSecret(request.headers.authorization ?? "", `Bearer ${Redacted.value(token)}`)
  })
  if (!allowed) return errorResponse(401, "Unauthorized")
  return HttpServerResponse.text(renderPrometheus(yield* Metric.snapshot), {
    contentType: "text/plain; version=0.0.4; charset=utf-8"
  })
})
