/**
 * Reliability: a database outage mid-run (README, Operations: Credits and the database). The service process reaches PostgreSQL through
 * a TCP proxy owned by the test (the machine's server is shared with other suites and stays up),
 * which is stopped (connections reset and refused) or turned into a blackhole (nothing delivered).
 * Meanwhile requests fail with 500 and `/api/tokens` answers `Server error`; nothing is charged;
 * when the database is back the service recovers by itself, and no credit stays held.
 */
import { describe, expect, it } from "@effect/vitest"
import { Array as Arr, Effect, Fiber, Schedule } from "effect"
import { postgresSkipReason, postgresUrl } from "../support/database.ts"
import { customer, jpeg } from "../support/describe.ts"
import { type Answer, bookOf, describeAt, inStore, postgresStore, readyzAt, tokensAt, waitFor } from "../support/liveService.ts"
import { startService } from "../support/process.ts"
import { serviceBehindProxy } from "../support/proxiedService.ts"

const timeout = 120_000

const internalError = { status: 500, body: { error: "Internal Server Error" } }
const serverError = { status: 500, body: { error: "Server error" } }

const answered = (answer: Answer) => ({ status: answer.status, body: answer.body })

/** Once the database is back, the service answers `/api/tokens` again by itself. */
const recovered = (url: string, token: string) =>
  waitFor("the service to reach the database again", Effect.map(tokensAt(url, token), (answer) => answer.status === 200), {
    every: "200 millis",
    upTo: "30 seconds"
  })

if (postgresUrl) {
  const serverUrl = postgresUrl
  describe("a PostgreSQL outage mid-run", () => {
    it.scopedLive("database stopped: 500s meanwhile, in-flight requests uncharged, recovery by itself, no credit left held", () =>
      Effect.gen(function* () {
        const store = yield* postgresStore(serverUrl)
        const [steady, inFlight] = yield* inStore(store)(Effect.all([customer(5), customer(2)]))
        const { holdAnswers, model, proxy, service } = yield* serviceBehindProxy(store)
        expect((yield* describeAt(service.url, steady.token, { image: jpeg })).status).toBe(200)

        // Two requests are generating (their credits reserved) when the database goes away.
        const answer = holdAnswers()
        const calls = model.received.length
        const requests = yield* Effect.forEach(Arr.makeBy(2, () => describeAt(service.url, inFlight.token, { image: jpeg })), Effect.fork)
        yield* waitFor("both model calls", Effect.sync(() => model.received.length === calls + 2))
        yield* proxy.stop
        answer()
        expect((yield* Effect.forEach(requests, Fiber.join)).map(answered)).toEqual([internalError, internalError])

        // While it is down.
        const during = yield* Effect.all([
          describeAt(service.url, steady.token, { image: jpeg }),
          describeAt(service.url, steady.token, { image: jpeg }),
          tokensAt(service.url, steady.token)
        ])
        expect(during.map(answered)).toEqual([internalError, internalError, serverError])
        expect(yield* service.running).toBe(true)

        yield* proxy.restore
        yield* recovered(service.url, steady.token)
        expect((yield* describeAt(service.url, steady.token, { image: jpeg })).status).toBe(200)
        // The two failed requests cost nothing and hold nothing: both credits can be spent.
        const spent = yield* Effect.all(Arr.makeBy(2, () => describeAt(service.url, inFlight.token, { image: jpeg })))
        expect(spent.map((a) => a.status === 200 ? 200 : answered(a))).toEqual([200, 200])

        const books = yield* inStore(store)(Effect.all([bookOf(steady.accountId), bookOf(inFlight.accountId)]))
        expect(books).toEqual([
          { credits: 3, reserved: 0, granted: 5, charges: 2, chargedFailures: 0, usage: { "charged 200": 2 } },
          { credits: 0, reserved: 0, granted: 2, charges: 2, chargedFailures: 0, usage: { "charged 200": 2, "released 500": 2 } }
        ])
      }), timeout)

    it.scopedLive("database unreachable (packets dropped): requests fail with 500 within 10 s, recovery by itself, nothing charged", () =>
      Effect.gen(function* () {
        const store = yield* postgresStore(serverUrl)
        const steady = yield* inStore(store)(customer(3))
        const { proxy, service } = yield* serviceBehindProxy(store)
        expect((yield* describeAt(service.url, steady.token, { image: jpeg })).status).toBe(200)

        yield* proxy.blackhole
        const during = yield* Effect.all([
          describeAt(service.url, steady.token, { image: jpeg }, "10 seconds"),
          tokensAt(service.url, steady.token, "10 seconds"),
          // A probe with a 3 s time-out, as orchestrators use, gets its answer, which names only the database.
          readyzAt(service.url, "3 seconds")
        ], { concurrency: 3, mode: "either" })
        yield* proxy.restore
        expect(during.map((answer) => answer._tag === "Right" ? answered(answer.right) : answer.left.message)).toEqual([
          internalError,
          serverError,
          {
            status: 503,
            body: { status: "not ready", database: "unreachable", migrations: "unknown", disk: "not checked", describer: "openai-compatible", shuttingDown: false }
          }
        ])
        expect(yield* service.running).toBe(true)

        yield* recovered(service.url, steady.token)
        expect((yield* describeAt(service.url, steady.token, { image: jpeg })).status).toBe(200)
        const book = yield* inStore(store)(bookOf(steady.accountId))
        expect(book).toMatchObject({ credits: 1, reserved: 0, charges: 2, chargedFailures: 0 })
      }), timeout)

    // Liveness on PostgreSQL is a session advisory lock (Instance.postgres): a process whose lock
    // can be taken is dead, and a starting process gives back its reservations.
    it.scopedLive("after an outage the service is still seen alive: a second process starting does not give back its in-flight credit", () =>
      Effect.gen(function* () {
        const store = yield* postgresStore(serverUrl)
        const c = yield* inStore(store)(customer(2))
        const { holdAnswers, model, proxy, service } = yield* serviceBehindProxy(store)
        yield* proxy.stop
        yield* proxy.restore
        yield* recovered(service.url, c.token)

        const answer = holdAnswers()
        const calls = model.received.length
        const request = yield* Effect.fork(describeAt(service.url, c.token, { image: jpeg }))
        yield* waitFor("the model call", Effect.sync(() => model.received.length === calls + 1))
        // A second process starts on the same database (a deploy, a scale-up), reaching it directly.
        // Its sweep of abandoned reservations runs in the background from the start: give it the
        // time to run before the model answers (it should leave the live process's credit alone).
        yield* startService({ ...store.env, OPENAI_BASE_URL: model.url })
        yield* inStore(store)(Effect.map(bookOf(c.accountId), (book) => book.reserved)).pipe(
          Effect.repeat({ schedule: Schedule.spaced("100 millis"), until: (reserved) => reserved === 0 }),
          Effect.timeoutOption("3 seconds")
        )
        answer()
        expect((yield* Fiber.join(request)).status).toBe(200)
        // The client got its description: it paid for it.
        const book = yield* inStore(store)(bookOf(c.accountId))
        expect(book).toEqual({ credits: 1, reserved: 0, granted: 2, charges: 1, chargedFailures: 0, usage: { "charged 200": 1 } })
      }), timeout)
  })
} else {
  describe.skip(postgresSkipReason, () => it("a PostgreSQL outage mid-run", () => {}))
}
