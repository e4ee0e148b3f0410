/**
 * Batch workers stopping (README, "Batches"): what SIGTERM does to them. Items running when the
 * workers stop go back to the queue, their credits released (a usage row `released 499`), and the
 * next workers run them once, charged once.
 */
import { afterAll } from "vitest"
import { expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Deferred, Effect, Exit, Layer, Ref, Schedule, Scope } from "effect"
import { AccountId } from "../../src/domain/ids.ts"
import { Batches } from "../../src/services/Batches.ts"
import { Describer } from "../../src/services/Describer.ts"
import { batchServicesOn, ended, startImageServer, testWorkers } from "../support/batches.ts"
import { backends } from "../support/database.ts"
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
  layer(serverWith(batchServicesOn(backend, model, 0)), { excludeTestServices: true })(`Batch workers stopping on ${backend.name}`, (it) => {
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
        }))

        const first = yield* Scope.make()
        yield* Layer.buildWithScope(testWorkers(2), first)
        yield* Ref.get(entered).pipe(Effect.filterOrFail((n) => n === 2), Effect.retry(Schedule.spaced("10 millis")))
        expect(yield* states(batch.id)).toEqual([{ state: "running", attempts: 1 }, { state: "running", attempts: 1 }])
        // As on SIGTERM: the workers' scope closes, interrupting the items held at the model.
        yield* Scope.close(first, Exit.void)
        expect(yield* states(batch.id)).toEqual([{ state: "queued", attempts: 1 }, { state: "queued", attempts: 1 }])
        expect(yield* c.balance).toBe(5)
        expect((yield* c.usage).map((row) => [row.state, row.status])).toEqual([["released", 499], ["released", 499]])

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
  })
}
