/**
 * A request answered 200 is charged, one answered anything else is not, whatever the database does
 * meanwhile (README, "Credits and the database"). The service reaches PostgreSQL through a TCP proxy
 * owned by the test; each fault hits the reservation (check 2 of §4.1) or the settlement:
 * - a stalled statement: the test holds the account's row lock for 7 s, past the service's
 *   statement and query timeouts (4 s and 5 s);
 * - a lost answer: the statement commits, and the proxy cuts the connection as its answer comes back.
 * PGlite is embedded in the process: no proxy can stand between them, so these run on PostgreSQL.
 */
import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Deferred, Effect, Fiber, type Scope } from "effect"
import { postgresSkipReason, postgresUrl } from "../support/database.ts"
import { customer, jpeg } from "../support/describe.ts"
import { type Answer, bookOf, describeAt, inStore, postgresStore, type Store, waitFor } from "../support/liveService.ts"
import { serviceBehindProxy } from "../support/proxiedService.ts"
import type { TcpProxy } from "../support/tcpProxy.ts"

const timeout = 120_000

const internalError = { status: 500, body: { error: "Internal Server Error" } }

const answered = (answer: Answer) => (answer.status === 200 ? 200 : { status: answer.status, body: answer.body })

interface Fault {
  readonly store: Store
  readonly accountId: string
  readonly proxy: TcpProxy
}

/**
 * A fault made: it gives an effect that waits until it is over (a statement that stalled may still
 * commit until then).
 */
type MakeFault = (fault: Fault) => Effect.Effect<Effect.Effect<void>, never, Scope.Scope>

/** Holds the account's row lock from the test's own connection for 7 s (in the background). */
const stall: MakeFault = ({ accountId, store }) =>
  Effect.gen(function* () {
    const held = yield* Deferred.make<void>()
    const lock = yield* Effect.forkScoped(inStore(store)(Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql.withTransaction(Effect.gen(function* () {
        yield* sql`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`
        yield* Deferred.succeed(held, undefined)
        yield* Effect.sleep("7 seconds")
      }))
    }).pipe(Effect.orDie)))
    yield* Deferred.await(held)
    return Fiber.join(lock)
  })

/** The next statement holding `marker` commits; its answer never reaches the service. */
const loseAnswerTo = (marker: string): MakeFault => ({ proxy }) => Effect.as(proxy.cutAnswerTo(marker), Effect.void)

/** Once nothing of the account is held any more (a hold given back in the background included). */
const nothingHeld = (store: Store, accountId: string) =>
  waitFor("the account's credits to be held by nobody", inStore(store)(Effect.map(bookOf(accountId), (book) => book.reserved === 0)), {
    every: "200 millis",
    upTo: "30 seconds"
  })

/** The service behind a proxy, an account of `credits`, and the fault to make. */
const setUp = (credits: number) =>
  Effect.gen(function* () {
    const store = yield* postgresStore(postgresUrl ?? "")
    const c = yield* inStore(store)(customer(credits))
    const running = yield* serviceBehindProxy(store)
    return { ...running, c, store, fault: { store, accountId: c.accountId, proxy: running.proxy } satisfies Fault }
  })

/**
 * The reservation fails: the client gets a 500, and whatever the statement held comes back (otherwise
 * the one credit would stay held for good, every later request told `no credit left`).
 */
const reservationFails = (fault: MakeFault) =>
  Effect.gen(function* () {
    const { c, fault: target, proxy, service, store } = yield* setUp(1)
    const over = yield* fault(target)
    expect(answered(yield* describeAt(service.url, c.token, { image: jpeg }))).toEqual(internalError)
    yield* over
    yield* nothingHeld(store, c.accountId)
    expect(answered(yield* describeAt(service.url, c.token, { image: jpeg }))).toBe(200)
    expect(yield* inStore(store)(bookOf(c.accountId))).toEqual({
      credits: 0, reserved: 0, granted: 1, charges: 1, chargedFailures: 0, usage: { "charged 200": 1, "released 500": 1 }
    })
    return { answersCut: yield* proxy.answersCut }
  })

/**
 * The settlement meets the fault once the model has answered: whatever the client is told, the
 * ledger says the same (not: a 500 for a request that was charged).
 */
const settlementFaulted = (fault: MakeFault) =>
  Effect.gen(function* () {
    const { c, fault: target, holdAnswers, model, proxy, service, store } = yield* setUp(5)
    const answer = holdAnswers()
    const request = yield* Effect.fork(describeAt(service.url, c.token, { image: jpeg }))
    yield* waitFor("the model call", Effect.sync(() => model.received.length === 1))
    const over = yield* fault(target)
    answer()
    const got = yield* Fiber.join(request)
    yield* over
    expect([200, internalError]).toContainEqual(answered(got))
    yield* nothingHeld(store, c.accountId)
    const book = yield* inStore(store)(bookOf(c.accountId))
    expect(book).toEqual(
      got.status === 200
        ? { credits: 4, reserved: 0, granted: 5, charges: 1, chargedFailures: 0, usage: { "charged 200": 1 } }
        : { credits: 5, reserved: 0, granted: 5, charges: 0, chargedFailures: 0, usage: { "released 500": 1 } }
    )
    return { got, answersCut: yield* proxy.answersCut }
  })

if (postgresUrl) {
  describe("credits when PostgreSQL is slow or an answer is lost", () => {
    it.scopedLive("reservation stalled on a locked row: 500, and the credit is not held afterwards", () =>
      reservationFails(stall), timeout)

    it.scopedLive("reservation committed but its answer lost: 500, and the credit is not held afterwards", () =>
      Effect.gen(function* () {
        const { answersCut } = yield* reservationFails(loseAnswerTo("WITH held AS"))
        expect(answersCut).toBe(1)
      }), timeout)

    it.scopedLive("settlement stalled on a locked row: the answer and the ledger agree", () =>
      settlementFaulted(stall), timeout)

    it.scopedLive("settlement committed but its answer lost: read back, the client gets its 200 and pays once", () =>
      Effect.gen(function* () {
        const { answersCut, got } = yield* settlementFaulted(loseAnswerTo("WITH settled AS"))
        expect(answersCut).toBe(1)
        expect(answered(got)).toBe(200)
      }), timeout)
  })
} else {
  describe.skip(postgresSkipReason, () => it("credits when PostgreSQL is slow or an answer is lost", () => {}))
}
