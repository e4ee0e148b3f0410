/**
 * Reliability: a batch over two service processes sharing PostgreSQL (README, "Batches"), with a
 * fake model that fails every fifth item (a refusal: a 500, uncharged). One process is SIGKILLed
 * mid-batch; the other gives the killed one's items back to the queue and finishes the batch.
 * Then every item has ended exactly once, both processes ran items, and the credits used are
 * exactly the successes: by the balance, the ledger, the usage rows, and item by item. The batch's
 * webhook (README, "Webhooks") gets one `batch.completed` with the final counts and one
 * `batch.item.completed` per item, every one verified by the reference Standard Webhooks library
 * with the account's secret.
 */
import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Schedule } from "effect"
import { Webhook } from "standardwebhooks"
import { AccountId } from "../../src/domain/ids.ts"
import { AccountWebhooks } from "../../src/services/AccountWebhooks.ts"
import { startImageServer } from "../support/batches.ts"
import { postgresSkipReason, postgresUrl } from "../support/database.ts"
import { customer } from "../support/describe.ts"
import { answerRequested, fakeOpenAi, type Reply, refusal, sentRequest } from "../support/fakeOpenAi.ts"
import { bookOf, inStore, postgresStore } from "../support/liveService.ts"
import { startService } from "../support/process.ts"
import { webhookReceiver } from "../support/webhookReceiver.ts"

const items = 200
const granted = 250
const fails = (index: number) => index % 5 === 0

/** While set, the model keeps its answers (but refusals) until it is released: the kill finds work in flight. */
let held: Promise<void> | undefined

const holdAnswers = () => {
  let release = () => {}
  held = new Promise<void>((resolve) => (release = resolve))
  return () => {
    held = undefined
    release()
  }
}

/** Refuses items whose keywords say so; answers the others after a pause, or once released. */
const model: Reply = async (signal, body) => {
  if (sentRequest(body).prompt.includes("refuse-this-item")) return refusal(signal, body)
  await new Promise((resolve) => setTimeout(resolve, 30))
  await held
  return answerRequested(signal, body)
}

interface Batch {
  readonly id: string
  readonly status: string
  readonly completedAt: string | null
  readonly counts: Record<string, number>
  readonly items: ReadonlyArray<{ readonly index: number; readonly state: string; readonly status?: number; readonly error?: string }>
}

const fetchJson = (url: string, init?: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    return { status: response.status, body: (await response.json()) as unknown }
  })

const serverUrl = postgresUrl
if (serverUrl) {
  describe("a batch over two service processes on one PostgreSQL, one killed mid-batch", () => {
    it.scopedLive("every item ends once, both processes ran items, credits used = successes", () =>
      Effect.gen(function* () {
        const store = yield* postgresStore(serverUrl)
        const images = yield* Effect.acquireRelease(Effect.promise(startImageServer), (server) => Effect.sync(server.close))
        const fake = yield* fakeOpenAi([model])
        const c = yield* inStore(store)(customer(granted))
        const hooks = yield* inStore(store)(webhookReceiver)
        const env = {
          ...store.env,
          OPENAI_BASE_URL: fake.url,
          IMAGE_URL_ALLOW: "127.0.0.0/8",
          BATCH_WORKERS: "4",
          BATCH_ACCOUNT_CONCURRENCY: "8",
          BATCH_POLL_MS: "20"
        }
        const [a, b] = yield* Effect.all([startService(env), startService(env)], { concurrency: 2 })
        const auth = { authorization: `Bearer ${c.token}`, "content-type": "application/json" }
        const created = yield* fetchJson(`${a.url}/api/batches`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({
            webhookUrl: `${hooks.base}/ok/batch`,
            itemEvents: true,
            items: Array.from({ length: items }, (_, index) => ({
              imageUrl: `http://127.0.0.1:${images.port}/photo/${index}.jpg`,
              metadata: { index },
              ...(fails(index) ? { keywords: "refuse-this-item" } : {})
            }))
          })
        })
        expect(created.status).toBe(202)
        const id = (created.body as Batch).id
        const batchAt = (url: string) => Effect.map(fetchJson(`${url}/api/batches/${id}`, { headers: auth }), (seen) => seen.body as Batch)

        // Killed once a fair part of the batch is done and both processes hold running items (read
        // from the table, not assumed: on a loaded machine one process can sit idle for a while),
        // which the model holds until after the kill: a 30 ms answer could end between the look and the kill.
        yield* batchAt(b.url).pipe(
          Effect.filterOrFail((batch) => batch.counts["succeeded"]! + batch.counts["failed"]! >= 40, () => "not yet"),
          Effect.retry(Schedule.spaced("20 millis"))
        )
        const release = holdAnswers()
        yield* Effect.addFinalizer(() => Effect.sync(release))
        yield* inStore(store)(Effect.flatMap(SqlClient.SqlClient, (sql) =>
          // Items the model holds: not the refused ones (every fifth), which end at once.
          sql<{ n: number }>`SELECT count(DISTINCT claimed_by)::int AS n FROM batch_items
            WHERE batch_id = ${id} AND state = 'running' AND position % 5 <> 0`)).pipe(
            Effect.orDie,
            Effect.filterOrFail(([running]) => running?.n === 2, () => "not both running"),
            Effect.retry(Schedule.spaced("5 millis"))
          )
        expect((yield* a.stop("SIGKILL")).signal).toBe("SIGKILL")
        release()

        const batch = yield* batchAt(b.url).pipe(
          Effect.filterOrFail((found) => found.completedAt !== null, () => "not ended"),
          Effect.retry(Schedule.spaced("200 millis")),
          Effect.timeout("120 seconds"),
          Effect.orDie
        )
        const failed = Array.from({ length: items }, (_, index) => index).filter(fails).length
        expect([batch.status, batch.counts]).toEqual([
          "completed",
          { total: items, queued: 0, running: 0, succeeded: items - failed, failed, canceled: 0 }
        ])
        for (const item of batch.items) {
          expect(item).toMatchObject(fails(item.index)
            ? { state: "failed", status: 500, error: "Internal Server Error" }
            : { state: "succeeded", status: 200 })
        }

        const { book, perProcess, unchargedSuccesses, chargedAttempts, rerun } = yield* inStore(store)(Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const perProcess = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM batch_items
            WHERE batch_id = ${id} GROUP BY claimed_by`
          // Each success has the charged usage row of its own attempt; no other attempt was charged.
          const [unchargedSuccesses] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM batch_items i
            WHERE batch_id = ${id} AND state = 'succeeded'
              AND NOT EXISTS (SELECT 1 FROM usage u WHERE u.request_id = i.attempt_id AND u.state = 'charged')`
          const [chargedAttempts] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM usage
            WHERE account_id = ${c.accountId} AND state = 'charged'`
          // Items the killed process was running, run again by the other.
          const [rerun] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM batch_items WHERE batch_id = ${id} AND attempts > 1`
          return { book: yield* bookOf(c.accountId), perProcess, unchargedSuccesses, chargedAttempts, rerun }
        }).pipe(Effect.orDie))
        const succeeded = items - failed
        expect(book).toMatchObject({ credits: granted - succeeded, reserved: 0, granted, charges: succeeded, chargedFailures: 0 })
        expect(book.usage["charged 200"]).toBe(succeeded)
        expect([unchargedSuccesses?.n, chargedAttempts?.n]).toEqual([0, succeeded])
        expect(perProcess.length).toBe(2)
        expect(rerun?.n).toBeGreaterThan(0)

        // The webhook: every delivery signed with the account's secret, as the reference library checks.
        const secret = yield* inStore(store)(
          Effect.flatMap(AccountWebhooks, (webhooks) => webhooks.secretOf(AccountId.make(c.accountId))).pipe(Effect.provide(AccountWebhooks.Default))
        )
        const verifier = new Webhook(secret)
        // Every event delivered: the batch's, and one per item (event ids, as a redelivery keeps its id).
        const allSeen = Effect.sync(() =>
          hooks.received.some((r) => r.body.includes(`"type":"batch.completed"`)) &&
          new Set(hooks.received.filter((r) => r.body.includes(`"type":"batch.item.completed"`)).map((r) => r.headers["webhook-id"])).size >= items
        )
        // Attempts the killed process had in flight hold its share of the account's webhook workers
        // until their lease ends (WEBHOOK_TIMEOUT_MS + 1 minute, README "Webhooks").
        yield* allSeen.pipe(Effect.filterOrFail((seen) => seen, () => "not yet"), Effect.retry(Schedule.spaced("200 millis")), Effect.timeout("150 seconds"), Effect.orDie)
        const events = hooks.received.map((r) => ({
          id: r.headers["webhook-id"],
          event: verifier.verify(r.body, r.headers) as { type: string; data: { index?: number; state?: string; counts?: unknown; status?: string } }
        }))
        const forged = hooks.received[0]!
        expect(() => verifier.verify(forged.body.replace(`"batchId"`, `"batchID"`), forged.headers)).toThrow()
        const completed = events.filter((e) => e.event.type === "batch.completed")
        expect(new Set(completed.map((e) => e.id)).size).toBe(1)
        expect(completed[0]?.event.data).toMatchObject({ status: "completed", counts: batch.counts })
        // One event per item (a redelivery keeps its id), each saying how the item ended.
        const itemEvents = new Map(events.filter((e) => e.event.type === "batch.item.completed").map((e) => [e.id, e.event.data]))
        expect(new Set([...itemEvents.values()].map((data) => data.index)).size).toBe(items)
        expect(itemEvents.size).toBe(items)
        for (const data of itemEvents.values()) expect(data.state).toBe(fails(data.index ?? -1) ? "failed" : "succeeded")
      }), 360_000)
  })
} else {
  describe.skip(postgresSkipReason, () => it("a batch over two service processes on one PostgreSQL", () => {}))
}
