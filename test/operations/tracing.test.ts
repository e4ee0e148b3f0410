import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import { untracedRequest } from "../../src/http/server.ts"
import { TracingLive } from "../../src/tracing.ts"
import { testSettings } from "../support/config.ts"
import { pglite } from "../support/database.ts"
import { customer, jpeg, postDescribe } from "../support/describe.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

/** A local OTLP/HTTP collector: the names of the spans it received. */
const collector = Effect.acquireRelease(
  Effect.sync(() => {
    const spanNames: Array<string> = []
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async (request) => {
        const body = (await request.json()) as {
          resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<{ name: string }> }> }>
        }
        for (const resource of body.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) spanNames.push(...(scope.spans ?? []).map((s) => s.name))
        }
        return Response.json({})
      }
    })
    return { server, url: `http://127.0.0.1:${server.port}`, spanNames }
  }),
  ({ server }) => Effect.promise(() => server.stop(true))
)

describe("traces", () => {
  it.scopedLive("with OTEL_EXPORTER_OTLP_ENDPOINT set, a describe request's spans reach the collector", () =>
    Effect.gen(function* () {
      const otlp = yield* collector
      const tracing = TracingLive.pipe(
        Layer.provide(testSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url }))
      )
      yield* Effect.gen(function* () {
        const c = yield* customer(1)
        expect((yield* postDescribe({ image: jpeg }, c.token)).status).toBe(200)
        yield* Effect.sync(() => otlp.spanNames.includes("POST /api/describe")).pipe(
          Effect.repeat({ until: (done) => done, schedule: Schedule.spaced("200 millis") }),
          Effect.timeout("15 seconds")
        )
      }).pipe(Effect.provide(serverWith(servicesOn(pglite))), Effect.provide(tracing))
      expect(otlp.spanNames).toEqual(expect.arrayContaining([
        "POST /api/describe", "ApiKeys.authenticate", "Credits.reserve", "Images.prepare", "Credits.settle"
      ]))
    }), 60_000)

  it("a request gets a server span only while the tracer is on, and never a dashboard URL (its one-time tokens)", () => {
    const paths = ["/api/describe", "/healthz", "/dashboard/invite?token=secret"]
    expect(paths.map((url) => untracedRequest(true)({ url }))).toEqual([false, false, true])
    expect(paths.map((url) => untracedRequest(false)({ url }))).toEqual([true, true, true])
  })

  it.effect("without it the tracer is off: spans are made unsampled, recorded by no one", () =>
    Effect.gen(function* () {
      const span = yield* Effect.withSpan("probe")(Effect.currentSpan)
      expect(span.sampled).toBe(false)
    }).pipe(Effect.provide(TracingLive.pipe(Layer.provide(testSettings())))))
})
