/**
 * Batch workers stopping and recovering (README, "Batches"). Items running when the workers stop
 * (SIGTERM) go back to the queue, their credits released (a usage row `released 500`, stopped), and the
 * next workers run them once, charged once. Items of a process that died are ended from their
 * attempt's usage row: a captured credit means succeeded (never run again), any other means queued.
 */
import { afterAll } from "vitest"
import { describe, expect, it, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Deferred, Effect, Exit, HashMap, Layer, Logger, Option, Redacted, Ref, Schedule, Scope } from "effect"
import * as Database from "../../src/db/Database.ts"
import { AccountId } from "../../src/domain/ids.ts"
import { requestIdAnnotation } from "../../src/domain/requestId.ts"
import { Batches } from "../../src/services/Batches.ts"
import { Credits } from "../../src/services/Credits.ts"
import { Describer } from "../../src/services/Describer.ts"
import { batchServicesOn, ended, startImageServer, testWorkers } from "../support/batches.ts"
import { testSettingsOrDie } from "../support/config.ts"
import { backends, postgresUrl } from "../support/database.ts"
import { failuresLoggedWith, loggedThroughOutage } from "../support/outage.ts"
import { proxiedFreshPostgres } from "../support/tcpProxy.ts"
import { customer } from "../support/describe.ts"
import { serverWith } from "../support/server.ts"

const images = await startImageServer()
afterAll(images.close)

const entered = Effect.runSync(Ref.make(0))
const gate = Effect.runSync(Ref.make(Effect.runSync(Deferred.make<void>())))

/** Counts the calls, each held at the gate until the test opens it. */
const model = Describer.scripted((request) =>
  Effect.gen(function* () {
    yield* Ref.update(entered, (n) => n + 1)
    yield* Deferred.await(yield* Ref.get(gate))
    return Object.fromEntries(request.fields.map((field) => [field.name, `${field.name} value`]))
  }))

const states = (batchId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ state: string; attempts: number }>`SELECT state, attempts FROM batch_items WHERE batch_id = ${batchId} ORDER BY position`).pipe(Effect.orDie)

for (const backend of backends) {
  // No workers of the layer's own: the test starts and stops them.
  layer(serverWith(batchServicesOn(backend, model, 0)), { excludeTestServices: true })(`Batch workers stopping and recovering on ${backend.name}`, (it) => {
    it.effect("running items go back to the queue uncharged; the next workers run them once, charged once", () =>
      Effect.gen(function* () {
        const c = yield* customer(5)
        yield* Ref.set(entered, 0)
        const open = yield* Deferred.make<void>()
        yield* Ref.set(gate, open)
        const imageUrl = `http://images.test:${images.port}/photo/held.jpg`
        const batch = yield* Effect.flatMap(Batches, (batches) => batches.create(AccountId.make(c.accountId), c.keyId, {
          items: [{ fields: { imageUrl }, metadata: undefined }, { fields: { imageUrl }, metadata: undefined }],
          webhookUrl: undefined,
          itemEvents: false
        }, Option.none()).pipe(Effect.map(({ summary }) => summary)))

        const first = yield* Scope.make()
        yield* Layer.buildWithScope(testWorkers(2), first)
        yield* Ref.get(entered).pipe(Effect.filterOrFail((n) => n === 2), Effect.retry(Schedule.spaced("10 millis")))
        expect(yield* states(batch.id)).toEqual([{ state: "running", attempts: 1 }, { state: "running", attempts: 1 }])
        // As on SIGTERM: the workers' scope closes, interrupting the items held at the model.
        yield* Scope.close(first, Exit.void)
        expect(yield* states(batch.id)).toEqual([{ state: "queued", attempts: 1 }, { state: "queued", attempts: 1 }])
        expect(yield* c.balance).toBe(5)
        expect((yield* c.usage).map((row) => [row.state, row.status, row.errorKind])).toEqual([["released", 500, "Stopped"], ["released", 500, "Stopped"]])

        yield* Deferred.succeed(open, undefined)
        const second = yield* Scope.make()
        yield* Layer.buildWithScope(testWorkers(2), second)
        const done = yield* ended(batch.id, c.token)
        yield* Scope.close(second, Exit.void)
        expect(done.counts).toMatchObject({ succeeded: 2, failed: 0 })
        expect(yield* states(batch.id)).toEqual([{ state: "succeeded", attempts: 2 }, { state: "succeeded", attempts: 2 }])
        expect(yield* c.balance).toBe(3)
        expect(yield* Ref.get(entered)).toBe(4)
      }))

    it.effect("each item that ends logs one line with its batch and outcome, a failure's status and kind too", () =>
      Effect.gen(function* () {
        const c = yield* customer(5)
        const open = yield* Deferred.make<void>()
        yield* Deferred.succeed(open, undefined)
        yield* Ref.set(gate, open)
        const lines: Array<Record<string, unknown>> = []
        const collecting = Logger.replace(Logger.defaultLogger, Logger.make(({ message, annotations }) => {
          if (String(Array.isArray(message) ? message[0] : message) === "batch item") lines.push(Object.fromEntries(HashMap.toEntries(annotations)))
        }))
        const batch = yield* Effect.flatMap(Batches, (batches) => batches.create(AccountId.make(c.accountId), c.keyId, {
          items: [
            { fields: { imageUrl: `http://images.test:${images.port}/photo/logged.jpg` }, metadata: undefined },
            { fields: { imageUrl: `http://images.test:${images.port}/missing.jpg` }, metadata: undefined }
          ],
          webhookUrl: undefined,
          itemEvents: false
        }, Option.none()).pipe(Effect.map(({ summary }) => summary)))
        const workers = yield* Scope.make()
        yield* Layer.buildWithScope(testWorkers(1).pipe(Layer.provide(collecting)), workers)
        yield* ended(batch.id, c.token)
        yield* Scope.close(workers, Exit.void)
        const mine = lines.filter((line) => line["batchId"] === batch.id)
        expect(mine.map(({ outcome, status, errorKind }) => ({ outcome, status, errorKind }))).toEqual([
          { outcome: "succeeded", status: undefined, errorKind: undefined },
          { outcome: "failed", status: 400, errorKind: "ImageUrlFetchFailed" }
        ])
        expect(mine.every((line) => typeof line["durationMs"] === "number" && typeof line["requestId"] === "string")).toBe(true)
      }))

    it.effect("items running when their batch is canceled, then stopped, are canceled rather than queued to run again", () =>
      Effect.gen(function* () {
        const c = yield* customer(5)
        const accountId = AccountId.make(c.accountId)
        yield* Ref.set(entered, 0)
        yield* Ref.set(gate, yield* Deferred.make<void>())
        const imageUrl = `http://images.test:${images.port}/photo/canceled.jpg`
        const batches = yield* Batches
        const batch = (yield* batches.create(accountId, c.keyId, {
          items: [{ fields: { imageUrl }, metadata: undefined }, { fields: { imageUrl }, metadata: undefined }],
          webhookUrl: undefined,
          itemEvents: false
        }, Option.none())).summary
        const workers = yield* Scope.make()
        yield* Layer.buildWithScope(testWorkers(2), workers)
        yield* Ref.get(entered).pipe(Effect.filterOrFail((n) => n === 2), Effect.retry(Schedule.spaced("10 millis")))
        // DELETE leaves running items to finish; these are stopped instead (as a worker whose
        // credits stayed held, or a process stopping, gives its item back).
        expect((yield* batches.cancel(accountId, batch.id)).counts).toMatchObject({ running: 2, canceled: 0 })
        yield* Scope.close(workers, Exit.void)
        expect(yield* states(batch.id)).toEqual([{ state: "canceled", attempts: 1 }, { state: "canceled", attempts: 1 }])
        const done = yield* ended(batch.id, c.token)
        expect([done.status, done.counts]).toEqual(["canceled", { total: 2, queued: 0, running: 0, succeeded: 0, failed: 0, canceled: 2 }])
        expect(yield* c.balance).toBe(5)
      }))

    it.effect("items of a process that died are ended from their credit: one captured succeeded (not run again), one released runs again", () =>
      Effect.gen(function* () {
        const c = yield* customer(5)
        const accountId = AccountId.make(c.accountId)
        yield* Ref.set(entered, 0)
        const open = yield* Deferred.make<void>()
        yield* Deferred.succeed(open, undefined)
        yield* Ref.set(gate, open)
        const imageUrl = `http://images.test:${images.port}/photo/ghost.jpg`
        const batch = yield* Effect.flatMap(Batches, (batches) => batches.create(accountId, c.keyId, {
          items: [{ fields: { imageUrl }, metadata: undefined }, { fields: { imageUrl }, metadata: undefined }],
          webhookUrl: undefined,
          itemEvents: false
        }, Option.none()).pipe(Effect.map(({ summary }) => summary)))
        // A process that is gone had claimed both: the first's credit captured (its result stored
        // first, as a worker does) but the item not ended yet; the second's credit released.
        const credits = yield* Credits
        const attempt = (outcome: { readonly status: number; readonly errorKind: string | null }) =>
          Effect.gen(function* () {
            const attemptId: string = crypto.randomUUID()
            const usageId = yield* credits.reserve(accountId, c.keyId).pipe(Effect.annotateLogs(requestIdAnnotation, attemptId))
            yield* credits.settle(usageId, outcome)
            return attemptId
          })
        const captured = yield* attempt({ status: 200, errorKind: null })
        const released = yield* attempt({ status: 500, errorKind: "Unexpected" })
        const sql = yield* SqlClient.SqlClient
        const ghost = crypto.randomUUID()
        yield* sql`UPDATE batch_items SET state = 'running', claimed_by = ${ghost}, attempts = 1,
          attempt_id = CASE position WHEN 0 THEN ${captured} ELSE ${released} END,
          result = CASE position WHEN 0 THEN '{"title":"kept"}' ELSE NULL END,
          content_language = CASE position WHEN 0 THEN 'de' ELSE NULL END,
          describer = CASE position WHEN 0 THEN 'offline' ELSE NULL END
          WHERE batch_id = ${batch.id}`.pipe(Effect.orDie)
        expect(yield* c.balance).toBe(4)

        const workers = yield* Scope.make()
        yield* Layer.buildWithScope(testWorkers(2), workers)
        const done = yield* ended(batch.id, c.token)
        yield* Scope.close(workers, Exit.void)
        expect(done.items).toEqual([
          { index: 0, state: "succeeded", status: 200, result: { title: "kept" }, language: "de", describer: "offline" },
          {
            index: 1, state: "succeeded", status: 200, language: "en", describer: "scripted",
            result: { title: "title value", alternativeText: "alternativeText value", caption: "caption value", alt_text: "alternativeText value" }
          }
        ])
        expect(yield* states(batch.id)).toEqual([{ state: "succeeded", attempts: 1 }, { state: "succeeded", attempts: 2 }])
        // One credit for each success: the first's, captured by the gone process, and the second's run.
        expect(yield* c.balance).toBe(3)
        expect(yield* Ref.get(entered)).toBe(1)
      }), 60_000)
  })
}

describe.skipIf(postgresUrl === undefined)("batch workers while PostgreSQL is down", () => {
  it.scopedLive("an outage is logged once by the process (each failure it shows once), not by each worker at each look, and so is its end", () =>
    Effect.gen(function* () {
      const { proxy, through } = yield* proxiedFreshPostgres(postgresUrl ?? "")
      const behindProxy = {
        name: "PostgreSQL behind a proxy",
        layer: Database.layerPostgres(Redacted.make(through.toString())).pipe(Layer.orDie, Layer.merge(testSettingsOrDie()))
      }
      const logged = yield* loggedThroughOutage(proxy, (logger) =>
        testWorkers(4).pipe(Layer.provide(batchServicesOn(behindProxy, model, 0)), Layer.provide(logger)))
      // Each failure once, however many looks met it: the broken connection, then the refused ones.
      const failures = failuresLoggedWith(logged, "a batch worker failed; it goes on after a pause")
      expect(failures.length).toBeGreaterThan(0)
      expect(failures).toEqual([...new Set(failures)])
      expect(logged.filter((line) => line.message === "batch workers resumed")).toHaveLength(1)
    }), 60_000)
})
