/**
 * Optional trace export (README, Operations: Traces): with `OTEL_EXPORTER_OTLP_ENDPOINT` set, every span (one per
 * request, per service call, per pipeline step) goes to that OTLP/HTTP collector as JSON.
 * Without it the tracer is off, so no span is even made: Effect's own tracer would still record
 * each one, with a stack trace, for nobody.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ObservabilityConfig } from "./config/ObservabilityConfig.ts"

/** The endpoint and service name are in the start-up summary (config/ObservabilityConfig.ts). */
export const TracingLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const { otlpEndpoint: endpoint, serviceName } = yield* ObservabilityConfig
    if (Option.isNone(endpoint)) return Layer.setTracerEnabled(false)
    return OtlpTracer.layer({
      url: `${endpoint.value.replace(/\/$/, "")}/v1/traces`,
      resource: { serviceName },
      exportInterval: "2 seconds"
    }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
  })
)
