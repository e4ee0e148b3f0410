/**
 * Webhook delivery (README, "Webhooks"): events queued with `Webhooks.enqueue` reach a loopback
 * receiver (allowed as the operator would, `IMAGE_URL_ALLOW`) signed per Standard Webhooks, which
 * the reference library (`standardwebhooks`) verifies; failures are retried on the specification's
 * schedule (TestClock: no test waits minutes) and abandoned after it, every attempt recorded;
 * refused addresses are never connected to; two workers deliver each event once.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Clock, Duration, Effect, Either, Fiber, Layer, Logger, LogLevel, Redacted, Schedule, TestClock } from "effect"
import * as net from "node:net"
import { Webhook } from "standardwebhooks"
import { ServicesLive } from "../../src/app.ts"
import * as Database from "../../src/db/Database.ts"
import { AccountId } from "../../src/domain/ids.ts"
import { parseAllowList } from "../../src/domain/publicAddress.ts"
import { retryDelays } from "../../src/domain/webhooks.ts"
import { AccountWebhooks } from "../../src/services/AccountWebhooks.ts"
import { Accounts } from "../../src/services/Accounts.ts"
import { HostResolver } from "../../src/services/HostResolver.ts"
import { WebhookDelivery } from "../../src/services/WebhookDelivery.ts"
import { ImageUrlConfig } from "../../src/config/ImageUrlConfig.ts"
import { WebhookConfig } from "../../src/config/WebhookConfig.ts"
import { testSettings, testSettingsOrDie } from "../support/config.ts"
import { Webhooks } from "../../src/services/Webhooks.ts"
import { excerptBytes } from "../../src/services/webhookPost.ts"
import { backends, freshPostgresUrl, postgresUrl } from "../support/database.ts"
import type { Backend } from "../support/database.ts"
import { freePort } from "../support/process.ts"
import { failuresLoggedWith, loggedThroughOutage } from "../support/outage.ts"
import { proxiedFreshPostgres } from "../support/tcpProxy.ts"
import { webhookReceiver } from "../support/webhookReceiver.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Error)

const settings = (allow: string, perAccount = 2) => ({
  allow: parseAllowList(allow).allow, timeout: Duration.seconds(5), poll: Duration.millis(20), concurrency: 2, perAccount
})
/** Deliveries that may reach the loopback receiver, as `IMAGE_URL_ALLOW=127.0.0.1` allows. */
const loopbackAllowed = WebhookDelivery.layerWith(settings("127.0.0.1"))

const stack = (backend: Backend) => ServicesLive.pipe(Layer.provideMerge(backend.layer), Layer.provide(quiet))

const account = Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "Hooks" })).pipe(Effect.map((a) => a.id), Effect.orDie)

const enqueue = (accountId: AccountId, url: string, data: unknown = { batchId: "b1" }) =>
  Effect.flatMap(Webhooks, (webhooks) => webhooks.enqueue({ accountId, url, event: { type: "batch.completed", data } })).pipe(Effect.orDie)

const deliverDue = Effect.flatMap(WebhookDelivery, (delivery) => delivery.deliverDue)

const eventTo = (url: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string; state: string; attempts: number; endReason: string | null }>`SELECT id, state, attempts, end_reason
      FROM webhook_events WHERE url = ${url}`).pipe(Effect.orDie, Effect.map(([event]) => event))

const attemptsTo = (url: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ attempt: number; status: number | null; error: string | null; responseExcerpt: string | null }>`SELECT a.attempt, a.status,
      a.error, a.response_excerpt FROM webhook_attempts a JOIN webhook_events e ON e.id = a.event_id
      WHERE e.url = ${url} ORDER BY a.attempt`).pipe(Effect.orDie)

/** Deliveries to `hooks.test`, a name of two addresses: 127.0.0.2, then 127.0.0.1 (the receiver's). */
const onTwoAddresses = <A, E, R>(test: Effect.Effect<A, E, R>) =>
  test.pipe(
    Effect.provide(WebhookDelivery.layerWith(settings("hooks.test"))),
    Effect.provideService(HostResolver, HostResolver.fixed({ "hooks.test": ["127.0.0.2", "127.0.0.1"] }))
  )

const secretOf = (accountId: AccountId) => Effect.flatMap(AccountWebhooks, (hooks) => hooks.secretOf(accountId))

/** The signature the reference library makes for what was received, with its own timestamp. */
const referenceSignature = (secret: string, received: { readonly headers: Record<string, string>; readonly body: string }) =>
  new Webhook(secret).sign(received.headers["webhook-id"] ?? "", new Date(Number(received.headers["webhook-timestamp"]) * 1000), received.body)

for (const backend of backends) {
  layer(stack(backend))(`webhook delivery (${backend.name})`, (it) => {
    it.scoped("an event queued is delivered once, signed: the reference library verifies it with the account's secret", () =>
      Effect.gen(function* () {
        const queuedAt = Date.now()
        yield* TestClock.setTime(queuedAt)
        const { base, received } = yield* webhookReceiver
        const accountId = yield* account
        const url = `${base}/ok/delivered`
        yield* enqueue(accountId, url, { batchId: "b1", succeeded: 3, failed: 1 })
        expect(yield* deliverDue).toBe(1)
        expect(yield* deliverDue).toBe(0)
        const [request] = received
        expect(received.length).toBe(1)
        expect(request?.headers["content-type"]).toBe("application/json")
        expect(new Webhook(yield* secretOf(accountId)).verify(request?.body ?? "", request?.headers ?? {})).toEqual({
          type: "batch.completed", timestamp: new Date(queuedAt).toISOString(),
          data: { batchId: "b1", succeeded: 3, failed: 1 }
        })
        expect(request?.headers["webhook-id"]).toBe((yield* eventTo(url))?.id)
        expect(yield* eventTo(url)).toMatchObject({ state: "delivered", attempts: 1 })
        expect(yield* attemptsTo(url)).toEqual([{ attempt: 1, status: 200, error: null, responseExcerpt: "thanks" }])
      }).pipe(Effect.provide(loopbackAllowed)))

    it.scoped("a failing receiver (500, 500, then 200) is retried after 5 s, then 5 min, each attempt recorded and signed anew", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.now())
        const { base, received } = yield* webhookReceiver
        const accountId = yield* account
        const url = `${base}/flaky/retried`
        yield* enqueue(accountId, url)
        expect(yield* deliverDue).toBe(1)
        yield* TestClock.adjust("4 seconds")
        expect(yield* deliverDue).toBe(0)
        yield* TestClock.adjust("1 second")
        expect(yield* deliverDue).toBe(1)
        yield* TestClock.adjust("299 seconds")
        expect(yield* deliverDue).toBe(0)
        yield* TestClock.adjust("1 second")
        expect(yield* deliverDue).toBe(1)
        expect((yield* attemptsTo(url)).map(({ attempt, status }) => [attempt, status])).toEqual([[1, 500], [2, 500], [3, 200]])
        expect(yield* eventTo(url)).toMatchObject({ state: "delivered", attempts: 3 })
        const secret = yield* secretOf(accountId)
        expect(received.map((r) => r.headers["webhook-signature"])).toEqual(received.map((r) => referenceSignature(secret, r)))
        expect(new Set(received.map((r) => r.headers["webhook-id"])).size).toBe(1)
        expect(new Set(received.map((r) => r.headers["webhook-timestamp"])).size).toBe(3)
      }).pipe(Effect.provide(loopbackAllowed)))

    it.scoped("a receiver that always fails gets 8 attempts over about a day, then the event is abandoned; only an excerpt of its answer is kept", () =>
      Effect.gen(function* () {
        const { base, received } = yield* webhookReceiver
        const url = `${base}/teapot/abandoned`
        yield* enqueue(yield* account, url)
        expect(yield* deliverDue).toBe(1)
        for (const delay of retryDelays) {
          yield* TestClock.adjust(delay)
          expect(yield* deliverDue).toBe(1)
        }
        yield* TestClock.adjust("1 day")
        expect(yield* deliverDue).toBe(0)
        expect(received.length).toBe(8)
        const attempts = yield* attemptsTo(url)
        expect(attempts.map(({ status }) => status)).toEqual(Array(8).fill(418))
        expect(attempts[0]?.responseExcerpt).toBe("x".repeat(excerptBytes))
        expect(yield* eventTo(url)).toMatchObject({ state: "abandoned", attempts: 8, endReason: "the receiver answered 418" })
      }).pipe(Effect.provide(loopbackAllowed)))

    it.scoped("a 2xx is a delivery even when its body never ends: the excerpt is what came", () =>
      Effect.gen(function* () {
        const { base } = yield* webhookReceiver
        const url = `${base}/stalled/body`
        yield* enqueue(yield* account, url)
        expect(yield* deliverDue).toBe(1)
        expect(yield* attemptsTo(url)).toMatchObject([{ status: 200, error: null, responseExcerpt: "got it, th" }])
        expect(yield* eventTo(url)).toMatchObject({ state: "delivered", attempts: 1 })
      }).pipe(Effect.provide(loopbackAllowed)))

    it.scoped("a 2xx that comes just before the deadline is a delivery: the excerpt's wait comes after it", () =>
      Effect.gen(function* () {
        const { base, received } = yield* webhookReceiver
        const url = `${base}/stalled/late`
        yield* enqueue(yield* account, url)
        const delivering = yield* Effect.fork(deliverDue)
        // The status has come (the body stalls after it); then the deadline passes while the excerpt is awaited.
        while (received.length === 0) yield* Effect.promise(() => Bun.sleep(20))
        yield* Effect.promise(() => Bun.sleep(200))
        yield* TestClock.adjust("5 seconds")
        expect(yield* Fiber.join(delivering)).toBe(1)
        expect(yield* attemptsTo(url)).toMatchObject([{ status: 200, error: null, responseExcerpt: "got it, th" }])
        expect(yield* eventTo(url)).toMatchObject({ state: "delivered", attempts: 1 })
      }).pipe(Effect.provide(loopbackAllowed)))

    it.scoped("a receiver that does not answer is left alone a while, longer each time: the account's other events to it wait; its events to another URL, and another account's, go out", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.now())
        const { base, received } = yield* webhookReceiver
        const [silent, other] = [yield* account, yield* account]
        // Nothing listens there: each attempt fails at once, with no answer.
        const closed = `http://127.0.0.1:${yield* freePort}/hook`
        for (const n of [1, 2, 3]) {
          yield* enqueue(silent, closed, { batchId: `b${n}` })
          yield* TestClock.adjust("1 millis")
        }
        yield* enqueue(silent, `${base}/ok/same-account`)
        yield* enqueue(other, `${base}/ok/not-held-up`)
        // One worker: it tries the silent receiver once, then the account's other URL, then the other account's event.
        expect(yield* deliverDue).toBe(3)
        expect(received.map((r) => r.path)).toEqual(["/ok/same-account", "/ok/not-held-up"])
        const attempts = Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ attempts: number }>`SELECT attempts FROM webhook_events WHERE url = ${closed} ORDER BY created_at`).pipe(
          Effect.orDie,
          Effect.map((rows) => rows.map((row) => row.attempts))
        )
        expect(yield* attempts).toEqual([1, 0, 0])
        // Paused 5 s: then one more attempt (the oldest due), no answer again, paused 5 minutes.
        yield* TestClock.adjust("5 seconds")
        expect(yield* deliverDue).toBe(1)
        expect(yield* attempts).toEqual([1, 1, 0])
        yield* TestClock.adjust("4 minutes")
        expect(yield* deliverDue).toBe(0)
        yield* TestClock.adjust("1 minute")
        expect(yield* deliverDue).toBe(1)
        expect(yield* attempts).toEqual([1, 1, 1])
      }).pipe(Effect.provide(WebhookDelivery.layerWith({ ...settings("127.0.0.1"), concurrency: 1 }))))

    it.scoped("an account whose two URLs timed out within a minute waits whole for the rest of it: a new hanging URL after another cannot keep workers busy", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.now())
        const { base, received } = yield* webhookReceiver
        const [hanging, other] = [yield* account, yield* account]
        for (const n of [1, 2, 3]) {
          yield* enqueue(hanging, `${base}/ok/hang-${n}?hold=60000`)
          yield* TestClock.adjust("1 millis")
        }
        yield* enqueue(hanging, `${base}/ok/same-account`)
        yield* enqueue(other, `${base}/ok/other-account`)
        // One worker: each hanging receiver holds it until its time-out (5 s here), which the test clock brings.
        const delivering = yield* Effect.fork(deliverDue)
        for (const n of [1, 2]) {
          while (!received.some((r) => r.path === `/ok/hang-${n}`)) yield* Effect.promise(() => Bun.sleep(10))
          yield* TestClock.adjust("5 seconds")
        }
        // Two timed out: the account waits; the other account's event goes out.
        expect(yield* Fiber.join(delivering)).toBe(3)
        expect(received.map((r) => r.path)).toEqual(["/ok/hang-1", "/ok/hang-2", "/ok/other-account"])
        // Past the minute, oldest due first: the third hanging URL (its time-out), then the account's
        // working one (the first hanging URL, due again, would hold the worker next).
        yield* TestClock.adjust("1 minute")
        const later = yield* Effect.fork(deliverDue)
        while (!received.some((r) => r.path === "/ok/hang-3")) yield* Effect.promise(() => Bun.sleep(10))
        yield* TestClock.adjust("5 seconds")
        while (!received.some((r) => r.path === "/ok/same-account")) yield* Effect.promise(() => Bun.sleep(10))
        yield* Fiber.interrupt(later)
        expect(received.map((r) => r.path).slice(3, 5)).toEqual(["/ok/hang-3", "/ok/same-account"])
      }).pipe(Effect.provide(WebhookDelivery.layerWith({ ...settings("127.0.0.1"), concurrency: 1 }))))

    it.scoped("URLs that refuse the connection hold no worker, and hold up none of the account's working receivers", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.now())
        const { base, received } = yield* webhookReceiver
        const accountId = yield* account
        const closed = `http://127.0.0.1:${yield* freePort}/hook`
        for (let n = 0; n < 20; n++) {
          yield* enqueue(accountId, `${closed}?batch=${n}`)
          yield* TestClock.adjust("1 millis")
        }
        yield* enqueue(accountId, `${base}/ok/working`)
        expect(yield* deliverDue).toBe(21)
        expect(received.map((r) => r.path)).toEqual(["/ok/working"])
      }).pipe(Effect.provide(WebhookDelivery.layerWith({ ...settings("127.0.0.1"), concurrency: 1 }))))

    it.scoped("a paused receiver's backlog of 300 events does not hold up another account's event queued after it", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.now())
        const { base, received } = yield* webhookReceiver
        const [silent, other] = [yield* account, yield* account]
        const closed = `http://127.0.0.1:${yield* freePort}`
        for (let n = 0; n < 300; n++) yield* enqueue(silent, `${closed}/hook`, { batchId: `b${n}` })
        yield* TestClock.adjust("1 millis")
        yield* enqueue(other, `${base}/ok/behind-the-backlog`)
        // One worker: the silent receiver's oldest event, no answer, paused; then past its whole backlog.
        expect(yield* deliverDue).toBe(2)
        expect(received.map((r) => r.path)).toEqual(["/ok/behind-the-backlog"])
        const [tried] = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ count: number }>`SELECT count(*)::int AS count FROM webhook_events WHERE account_id = ${silent} AND attempts > 0`).pipe(Effect.orDie)
        expect(tried?.count).toBe(1)
      }).pipe(Effect.provide(WebhookDelivery.layerWith({ ...settings("127.0.0.1"), concurrency: 1 }))))

    it.scoped("a receiver's host of several addresses: one that refuses the connection is passed over for the next", () =>
      Effect.gen(function* () {
        const { base, received } = yield* webhookReceiver
        // The receiver listens on 127.0.0.1 only: 127.0.0.2 refuses.
        const url = `http://hooks.test:${new URL(base).port}/ok/second-address`
        yield* enqueue(yield* account, url)
        expect(yield* deliverDue).toBe(1)
        expect(received.map((r) => r.path)).toEqual(["/ok/second-address"])
        expect(yield* eventTo(url)).toMatchObject({ state: "delivered", attempts: 1 })
      }).pipe(onTwoAddresses))

    it.scoped("an address that took the event and dropped the connection is not followed by the next: the event is not sent twice in one attempt", () =>
      Effect.gen(function* () {
        const { base, received } = yield* webhookReceiver
        const port = Number(new URL(base).port)
        // On 127.0.0.2, the receiver's port: reads the request, then resets the connection.
        const dropping = net.createServer((socket) => socket.once("data", () => socket.resetAndDestroy()))
        yield* Effect.acquireRelease(
          Effect.async<void>((resume) => void dropping.listen(port, "127.0.0.2", () => resume(Effect.void))),
          () => Effect.sync(() => dropping.close())
        )
        const url = `http://hooks.test:${port}/ok/once`
        yield* enqueue(yield* account, url)
        expect(yield* deliverDue).toBe(1)
        expect(received).toEqual([])
        expect(yield* attemptsTo(url)).toMatchObject([{ attempt: 1, status: null }])
        expect(yield* eventTo(url)).toMatchObject({ state: "pending", attempts: 1 })
      }).pipe(onTwoAddresses))

    it.scoped("a redirect is a failed attempt, not followed", () =>
      Effect.gen(function* () {
        const { base, received } = yield* webhookReceiver
        const url = `${base}/redirect/moved`
        yield* enqueue(yield* account, url)
        expect(yield* deliverDue).toBe(1)
        expect(received.map((r) => r.path)).toEqual(["/redirect/moved"])
        expect((yield* attemptsTo(url)).map(({ status }) => status)).toEqual([302])
        expect(yield* eventTo(url)).toMatchObject({ state: "pending", attempts: 1 })
      }).pipe(Effect.provide(loopbackAllowed)))

    it.scoped("without the allow list, loopback and a name resolving to a private address are never connected to: abandoned at once, the reason recorded", () =>
      Effect.gen(function* () {
        const { base, received } = yield* webhookReceiver
        const accountId = yield* account
        const loopback = `${base}/ok/refused`
        const privateName = `http://hooks.test:${new URL(base).port}/ok/refused`
        yield* enqueue(accountId, loopback)
        yield* enqueue(accountId, privateName)
        expect(yield* deliverDue).toBe(2)
        expect(received).toEqual([])
        expect(yield* attemptsTo(loopback)).toMatchObject([{ status: null, error: "refused: 127.0.0.1 resolves to 127.0.0.1" }])
        expect(yield* attemptsTo(privateName)).toMatchObject([{ status: null, error: "refused: hooks.test resolves to 10.1.2.3" }])
        expect(yield* eventTo(privateName)).toMatchObject({ state: "abandoned", endReason: "refused: hooks.test resolves to 10.1.2.3" })
        yield* TestClock.adjust("1 day")
        expect(yield* deliverDue).toBe(0)
      }).pipe(
        Effect.provide(WebhookDelivery.layerWith(settings(""))),
        Effect.provideService(HostResolver, HostResolver.fixed({ "hooks.test": ["10.1.2.3"] }))
      ))

    it.scoped("ended events and their attempts are kept 30 days, then swept; pending ones stay", () =>
      Effect.gen(function* () {
        const { base } = yield* webhookReceiver
        const accountId = yield* account
        const delivered = `${base}/ok/swept`
        const pending = `${base}/redirect/kept`
        yield* enqueue(accountId, delivered)
        yield* enqueue(accountId, pending)
        expect(yield* deliverDue).toBe(2)
        const sweep = Effect.flatMap(WebhookDelivery, (delivery) => delivery.sweep)
        // Counted by this test's events: earlier tests' ended events may be swept alongside.
        yield* TestClock.adjust("30 days")
        yield* sweep
        expect(yield* eventTo(delivered)).toMatchObject({ state: "delivered" })
        yield* TestClock.adjust("1 second")
        expect(yield* sweep).toBeGreaterThanOrEqual(1)
        expect([yield* eventTo(delivered), (yield* attemptsTo(delivered)).length]).toEqual([undefined, 0])
        expect(yield* eventTo(pending)).toMatchObject({ state: "pending" })
      }).pipe(Effect.provide(loopbackAllowed)))

    it.scoped("an event queued in a transaction that fails is never sent", () =>
      Effect.gen(function* () {
        const { base, received } = yield* webhookReceiver
        const accountId = yield* account
        const url = `${base}/ok/rolled-back`
        const sql = yield* SqlClient.SqlClient
        yield* Effect.flip(sql.withTransaction(Effect.zipRight(enqueue(accountId, url), Effect.fail("the batch failed"))))
        expect(yield* deliverDue).toBe(0)
        expect([yield* eventTo(url), received.length]).toEqual([undefined, 0])
      }).pipe(Effect.provide(loopbackAllowed)))

    it.scoped("an account whose receiver is slow holds at most its share of the workers: another account's event goes out first", () =>
      Effect.gen(function* () {
        const { base, received } = yield* webhookReceiver
        const [slow, other] = [yield* account, yield* account]
        for (const n of [1, 2]) yield* enqueue(slow, `${base}/ok/slow-${n}?hold=2000`)
        yield* enqueue(other, `${base}/ok/other`)
        // Two workers, one attempt per account at a time: the second worker takes the other account's event.
        expect(yield* deliverDue).toBe(3)
        const order = received.map((r) => r.path)
        expect(order.indexOf("/ok/other")).toBeLessThan(order.indexOf("/ok/slow-2"))
      }).pipe(Effect.provide(WebhookDelivery.layerWith(settings("127.0.0.1", 1)))))

    for (const perAccount of [1, 2]) {
      it.scoped(`a receiver that hangs holds no worker but its own (${perAccount} per account): an event queued meanwhile goes out at once`, () =>
        Effect.gen(function* () {
          const { base, received } = yield* webhookReceiver
          const [hanging, other] = [yield* account, yield* account]
          // Held far past the test's end (the scope's close cuts it), so no load on the machine lets it answer first.
          for (const n of [1, 2]) yield* enqueue(hanging, `${base}/ok/hanging-${n}?hold=60000`)
          const seen = (path: string) => Effect.suspend(() => received.some((r) => r.path === path) ? Effect.void : Effect.fail("not yet")).pipe(
            Effect.retry(Schedule.spaced("10 millis").pipe(Schedule.upTo("10 seconds")))
          )
          yield* seen("/ok/hanging-1")
          yield* enqueue(other, `${base}/ok/meanwhile`)
          yield* Effect.flatMap(eventTo(`${base}/ok/meanwhile`), (event) => event?.state === "delivered" ? Effect.void : Effect.fail("not yet")).pipe(
            Effect.retry(Schedule.spaced("10 millis").pipe(Schedule.upTo("10 seconds")))
          )
          // Delivered while the hanging receiver still holds its first attempt, and with two workers,
          // the second never took the hanging account's second event.
          expect(yield* eventTo(`${base}/ok/hanging-1?hold=60000`)).toMatchObject({ state: "pending", attempts: 1 })
          expect(received.map((r) => r.path)).toEqual(["/ok/hanging-1", "/ok/meanwhile"])
        }).pipe(
          Effect.provide(WebhookDelivery.worker.pipe(Layer.provide(WebhookDelivery.layerWith({ ...settings("127.0.0.1", perAccount), timeout: Duration.minutes(2) })))),
          Effect.withClock(Clock.make())
        ))
    }

    it.scoped("the worker, running for the life of its layer, delivers what is queued without being asked", () =>
      Effect.gen(function* () {
        const { base, received } = yield* webhookReceiver
        const url = `${base}/ok/worker`
        yield* enqueue(yield* account, url)
        yield* Effect.flatMap(eventTo(url), (event) => event?.state === "delivered" ? Effect.void : Effect.fail("not yet")).pipe(
          Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("10 seconds")))
        )
        expect(received.map((r) => r.path)).toEqual(["/ok/worker"])
      }).pipe(
        Effect.provide(WebhookDelivery.worker.pipe(Layer.provide(loopbackAllowed))),
        // The real clock: the worker waits between its rounds as it does in production.
        Effect.withClock(Clock.make())
      ))

    it.scoped("two workers on one database deliver each of 20 events once", () =>
      Effect.gen(function* () {
        const { base, received } = yield* webhookReceiver
        const accountId = yield* account
        for (let i = 0; i < 20; i++) yield* enqueue(accountId, `${base}/ok/twice-${i}?hold=20`)
        const [one, two] = [yield* WebhookDelivery.make(settings("127.0.0.1")), yield* WebhookDelivery.make(settings("127.0.0.1"))]
        const counts = yield* Effect.all([one.deliverDue, two.deliverDue], { concurrency: "unbounded" })
        expect(counts[0] + counts[1]).toBe(20)
        expect(new Set(received.map((r) => r.headers["webhook-id"])).size).toBe(20)
        expect(received.length).toBe(20)
      }))
  })
}

describe.skipIf(postgresUrl === undefined)("webhook delivery by two processes sharing PostgreSQL", () => {
  // Two database clients and service stacks on one database, as two replicas have.
  const replica = (url: string) =>
    Layer.build(loopbackAllowed.pipe(
      Layer.provideMerge(ServicesLive),
      Layer.provideMerge(Database.layerPostgres(Redacted.make(url)).pipe(Layer.orDie)),
      Layer.provideMerge(testSettingsOrDie()),
      Layer.provide(quiet)
    ))

  layer(Layer.empty)("two replicas", (it) => {
    it.scoped("each of 40 events is delivered once", () =>
      Effect.gen(function* () {
        const fresh = yield* freshPostgresUrl(postgresUrl ?? "")
        const one = yield* replica(fresh.url)
        const two = yield* replica(fresh.url)
        const { base, received } = yield* webhookReceiver.pipe(Effect.provide(one))
        const accountId = yield* account.pipe(Effect.provide(one))
        for (let i = 0; i < 40; i++) yield* enqueue(accountId, `${base}/ok/replica-${i}?hold=10`).pipe(Effect.provide(one))
        const counts = yield* Effect.all([deliverDue.pipe(Effect.provide(one)), deliverDue.pipe(Effect.provide(two))], { concurrency: "unbounded" })
        expect([counts[0] + counts[1], received.length, new Set(received.map((r) => r.headers["webhook-id"])).size]).toEqual([40, 40, 40])
      }))
  })
})

describe.skipIf(postgresUrl === undefined)("webhook delivery while PostgreSQL is down", () => {
  it.scopedLive("an outage is logged once by the process (each failure it shows once), not by each worker at each look, and so is its end", () =>
    Effect.gen(function* () {
      const { proxy, through } = yield* proxiedFreshPostgres(postgresUrl ?? "")
      const logged = yield* loggedThroughOutage(proxy, (logger) =>
        WebhookDelivery.worker.pipe(
          Layer.provide(WebhookDelivery.layerWith({ ...settings("127.0.0.1"), concurrency: 4 })),
          Layer.provideMerge(ServicesLive),
          Layer.provideMerge(Database.layerPostgres(Redacted.make(through.toString())).pipe(Layer.orDie)),
          Layer.provideMerge(testSettingsOrDie()),
          Layer.provide(logger)
        ))
      // Each failure once, however many looks met it: the broken connection, then the refused ones.
      const failures = failuresLoggedWith(logged, "could not deliver webhook events")
      expect(failures.length).toBeGreaterThan(0)
      expect(failures).toEqual([...new Set(failures)])
      expect(logged.filter((line) => line.message === "webhook deliveries resumed")).toHaveLength(1)
    }), 60_000)
})

describe("webhook delivery settings", () => {
  const from = (variables: Record<string, string>) =>
    Effect.all([WebhookConfig, ImageUrlConfig]).pipe(Effect.provide(testSettings(variables)), Effect.either)

  it.effect("by default: 10 s per attempt, a look every second, 4 attempts at once, public addresses only", () =>
    Effect.gen(function* () {
      const [config, urls] = Either.getOrThrow(yield* from({}))
      expect([Duration.toMillis(config.timeout), Duration.toMillis(config.poll), config.concurrency]).toEqual([10_000, 1_000, 4])
      expect([urls.allow.hosts.size, urls.allow.ranges.length]).toEqual([0, 0])
      const [set, setUrls] = Either.getOrThrow(yield* from({ WEBHOOK_TIMEOUT_MS: "2500", WEBHOOK_CONCURRENCY: "16", IMAGE_URL_ALLOW: "hooks.internal" }))
      expect([Duration.toMillis(set.timeout), set.concurrency, [...setUrls.allow.hosts]]).toEqual([2500, 16, ["hooks.internal"]])
    }))

  it.effect("a value below 1 is refused at start-up, saying which", () =>
    Effect.gen(function* () {
      const refused = yield* from({ WEBHOOK_CONCURRENCY: "0" })
      expect(Either.isLeft(refused) && String(refused.left)).toContain("WEBHOOK_CONCURRENCY must be at least 1")
    }))
})
