import { describe, expect, it } from "@effect/vitest"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Deferred, Effect, Layer, Logger } from "effect"
import { GenerationFailed } from "../../src/domain/errors.ts"
import { loggedPath } from "../../src/http/requestLog.ts"
import { Describer } from "../../src/services/Describer.ts"
import { pglite } from "../support/database.ts"
import { customer, formData, jpeg } from "../support/describe.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

/** Every log entry's message and annotations, as plain data. */
const collected: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
const collecting = Logger.make(({ message, annotations }) => {
  collected.push({ message, annotations: Object.fromEntries(annotations) })
})

const post = (token: string, requestId?: string, schema?: string) =>
  Effect.flatMap(HttpClient.HttpClient, (client) =>
    client.execute(
      HttpClientRequest.post("/api/describe").pipe(
        HttpClientRequest.bodyFormData(formData({ image: jpeg, ...(schema ? { schema } : {}) })),
        HttpClientRequest.bearerToken(token),
        requestId ? HttpClientRequest.setHeader("x-request-id", requestId) : (r) => r
      )
    ))

const lineFor = (requestId: string) =>
  collected.find((entry) => String(entry.message) === "request" && entry.annotations["requestId"] === requestId)?.annotations

describe("loggedPath", () => {
  it("keeps a path's short segments (a batch's id) and shows a long one by its length, the whole cut at 256 characters", () => {
    const id = "5511ffde-3bd3-4079-9e5d-e170084abbad"
    expect(loggedPath(`/api/batches/${id}`)).toBe(`/api/batches/${id}`)
    expect(loggedPath(`/x/${"k".repeat(41)}/y`)).toBe("/x/<41 characters>/y")
    expect(loggedPath("/a".repeat(300))).toHaveLength(256)
  })
})

describe("one log line per request", () => {
  it.live("returns the client's request id, or a new one, and logs route, status, error kind and credits after; every answer says nosniff", () =>
    Effect.gen(function* () {
      const c = yield* customer(2)
      const ok = yield* post(c.token, "order-42.retry-1")
      expect(ok.status).toBe(200)
      expect(ok.headers["x-request-id"]).toBe("order-42.retry-1")
      expect(lineFor("order-42.retry-1")).toMatchObject({
        method: "POST", route: "/api/describe", status: 200, creditsAfter: 1, imageBytes: jpeg.length
      })
      expect(lineFor("order-42.retry-1")?.["modelLatencyMs"]).toEqual(expect.any(Number))

      const refused = yield* post(c.token, "not a sane id", "{}")
      const generated = refused.headers["x-request-id"] ?? ""
      expect(generated).toMatch(/^[0-9a-f-]{36}$/)
      expect(lineFor(generated)).toMatchObject({ status: 400, errorKind: "InvalidSchema", creditsAfter: 1 })
      expect([ok.headers["x-content-type-options"], refused.headers["x-content-type-options"]]).toEqual(["nosniff", "nosniff"])

      // Nor a key pasted into a path.
      const pasted = yield* Effect.flatMap(HttpClient.HttpClient, (client) => client.get(`/api/tokens/${c.token}`, { headers: { "x-request-id": "pasted" } }))
      expect([pasted.status, lineFor("pasted")?.["route"]]).toEqual([404, `/api/tokens/<${c.token.length} characters>`])

      // Neither the key nor any part of the upload reaches the logs.
      const logs = JSON.stringify(collected)
      expect(logs).not.toContain(c.token)
      expect(logs).not.toContain(c.token.split(".")[2])
    }).pipe(
      Effect.provide(serverWith(servicesOn(pglite))),
      // Outermost, so the server's request fibers are created with it.
      Effect.provide(Logger.replace(Logger.defaultLogger, collecting))
    ))

  it.live("a generation that failed is logged with its reason, which the client is never told", () =>
    Effect.gen(function* () {
      const refusing = Describer.scripted(() => Effect.fail(new GenerationFailed({ reason: "refusal" })))
      yield* Effect.gen(function* () {
        const c = yield* customer(1)
        const response = yield* post(c.token, "refused-by-model")
        expect([response.status, yield* response.json]).toEqual([500, { error: "Internal Server Error" }])
        expect(lineFor("refused-by-model")).toMatchObject({ status: 500, errorKind: "GenerationFailed", errorReason: "refusal", creditsAfter: 1 })
      }).pipe(Effect.provide(serverWith(servicesOn(pglite, refusing))))
    }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, collecting))))

  it.live("a defect (a database that failed, a bug) is logged as errorKind Unexpected, with the 500", () =>
    Effect.gen(function* () {
      const broken = Describer.scripted(() => Effect.die(new Error("connection terminated unexpectedly")))
      yield* Effect.gen(function* () {
        const c = yield* customer(1)
        const response = yield* post(c.token, "a-defect")
        expect([response.status, yield* response.json]).toEqual([500, { error: "Internal Server Error" }])
        expect(lineFor("a-defect")).toMatchObject({ status: 500, errorKind: "Unexpected", creditsAfter: 1 })
      }).pipe(Effect.provide(serverWith(servicesOn(pglite, broken))))
    }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, collecting))))

  it.live("a client that goes away while the model works still gets its line: status 499, counted in the metrics", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const hanging = Describer.scripted(() => Effect.zipRight(Deferred.succeed(started, undefined), Effect.never))
      yield* Effect.gen(function* () {
        const c = yield* customer(1)
        // Interrupting the client closes its socket.
        yield* Effect.raceFirst(post(c.token, "gone-away"), Deferred.await(started))
        yield* Effect.sleep("300 millis")
        expect(lineFor("gone-away")).toMatchObject({ method: "POST", route: "/api/describe", status: 499 })
        const metrics = yield* Effect.flatMap(HttpClient.HttpClient, (client) => client.get("/metrics")).pipe(Effect.flatMap((r) => r.text))
        expect(metrics).toMatch(/http_requests_total\{[^}]*route="\/api\/describe"[^}]*status="499"[^}]*\} 1/)
      }).pipe(Effect.provide(serverWith(servicesOn(pglite, hanging))))
    }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, collecting))))

  it.live("modelLatencyMs counts the describer's whole work: its start on the pixels and the model's answer", () =>
    Effect.gen(function* () {
      const c = yield* customer(1)
      expect((yield* post(c.token, "timed-describe")).status).toBe(200)
      expect(lineFor("timed-describe")?.["modelLatencyMs"]).toBeGreaterThanOrEqual(300)
    }).pipe(
      Effect.provide(serverWith(servicesOn(pglite, Layer.succeed(Describer, Describer.make("two slow steps", {
        start: (request) => Effect.promise(() => Bun.sleep(150)).pipe(Effect.as(request.fields)),
        generate: (fields) => Effect.promise(() => Bun.sleep(150)).pipe(
          Effect.as(Object.fromEntries(fields.map((field) => [field.name, "ok"])))
        )
      }))))),
      Effect.provide(Logger.replace(Logger.defaultLogger, collecting))
    ))
})
