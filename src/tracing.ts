/**
 * Optional trace export (README, Operations: Traces): with `OTEL_EXPORTER_OTLP_ENDPOINT` set, every span (one per
 * request, per service call, per pipeline step) goes to that OTLP/HTTP collector as JSON.
 * Without it the tracer is off, so no span is even made: Effect's own tracer would still record
 * each one, with a stack trace, for nobody.
 */
import { FetchHttpClient } from "@effect/platform"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { Config, Effect, Layer, Option } from "effect"
import { redactUrl } from "./config.ts"

export const TracingLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const endpoint = yield* Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT"))
    if (Option.isNone(endpoint)) return Layer.setTracerEnabled(false)
    const serviceName = yield* Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("image-metadata-service"))
    yield* Effect.logInfo("exporting traces", { endpoint: redactUrl(endpoint.value), serviceName })
    return OtlpTracer.layer({
      url: `${endpoint.value.replace(/\/$/, "")}/v1/traces`,
      resource: { serviceName },
      exportInterval: "2 seconds"
    }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
  })
)
