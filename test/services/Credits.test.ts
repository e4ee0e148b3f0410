import { describe, expect, it, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Cause, Clock, Effect, Exit, Fiber, Layer, Option, TestClock } from "effect"
import { isDeepStrictEqual } from "node:util"
import { Accounts } from "../../src/services/Accounts.ts"
import { ApiKeys } from "../../src/services/ApiKeys.ts"
import { Credits } from "../../src/services/Credits.ts"
import { Instance } from "../../src/services/Instance.ts"
import { backends, postgresSkipReason, postgresUrl } from "../support/database.ts"
import { type LossyClient, lossyClient } from "../support/lossyClient.ts"
import { servicesOn } from "../support/services.ts"
import { AccountId, KeyId } from "../../src/domain/ids.ts"

/** An account holding `credits`, and one of its keys. */
const funded = (credits: number) =>
  Effect.gen(function* () {
    const account = yield* Accounts.pipe(Effect.flatMap((accounts) => accounts.create({ name: "Shop" })))
    if (credits > 0) yield* Credits.pipe(Effect.flatMap((c) => c.grant(account.id, credits, "purchase")))
    const { key } = yield* ApiKeys.pipe(Effect.flatMap((keys) => keys.create(account.id, { expiredAt: new Date(1e13) })))
    return { accountId: account.id, keyId: key.id }
  })

const balanceOf = (accountId: string) => Accounts.pipe(Effect.flatMap((a) => a.find(AccountId.make(accountId))), Effect.map((a) => a.credits))

/** Lets the real database answer (a test clock stands still meanwhile). */
const realPause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** Runs `effect` while moving the test clock on a second at a time, until it ends. */
const withClockMoving = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(effect)
    while (Option.isNone(yield* Fiber.poll(fiber))) {
      yield* TestClock.adjust("1 second")
      yield* realPause(10)
    }
    return yield* Fiber.join(fiber)
  })

/** A second request, started while every credit is held: still waiting after a while. */
const waitingBehindHolds = (accountId: string, keyId: string) =>
  Effect.gen(function* () {
    const waiting = yield* Effect.fork(Effect.flatMap(Credits, (c) => c.reserve(AccountId.make(accountId), keyId === null ? null : KeyId.make(keyId))))
    yield* realPause(300)
    expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true)
    return waiting
  })

/** Another `Credits` (as another process would run), whose database answers can be lost. */
const lossyCredits = Effect.gen(function* () {
  const lossy: LossyClient = yield* lossyClient
  const credits = yield* Effect.provide(
    Credits,
    Credits.Default.pipe(Layer.provide(Instance.single), Layer.provide(Layer.succeed(SqlClient.SqlClient, lossy.sql)))
  )
  return { lossy, credits }
})

/** What the database holds of a request: its usage row and the account's book. */
const recordOf = (accountId: string, usageId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ state: string; status: number | null; errorKind: string | null }>`SELECT state, status, error_kind
      FROM usage WHERE id = ${usageId}`
    const [account] = yield* sql<{ credits: number; reserved: number }>`SELECT credits, reserved FROM accounts WHERE id = ${accountId}`
    return { usage: row, account, ledgerSum: yield* ledgerSum(accountId) }
  }).pipe(Effect.orDie)

/** Until the database holds `expected` (work done in the background), for a few seconds at most. */
const eventually = <A, R>(check: Effect.Effect<A, never, R>, expected: A) =>
  Effect.gen(function* () {
    for (let attempt = 1; ; attempt++) {
      const seen = yield* check
      if (attempt === 100 || isDeepStrictEqual(seen, expected)) return expect(seen).toEqual(expected)
      yield* realPause(30)
    }
  })

/** The balance must always be the ledger's sum. */
const ledgerSum = (accountId: string) =>
  Credits.pipe(Effect.flatMap((c) => c.ledger(AccountId.make(accountId))), Effect.map((rows) => rows.reduce((sum, row) => sum + row.amount, 0)))

for (const backend of backends) {
  layer(servicesOn(backend))(`Credits on ${backend.name}`, (it) => {
    it.effect("grants add to the balance with a ledger row giving the reason", () =>
      Effect.gen(function* () {
        const { accountId } = yield* funded(5)
        const credits = yield* Credits
        expect(yield* credits.grant(accountId, 3, "top-up")).toBe(8)
        expect(yield* credits.grant(accountId, -2, "refund")).toBe(6)
        expect((yield* credits.ledger(accountId)).map((row) => [row.amount, row.reason])).toEqual([
          [5, "purchase"], [3, "top-up"], [-2, "refund"]
        ])
        expect(yield* balanceOf(accountId)).toBe(6)
        expect(yield* ledgerSum(accountId)).toBe(6)
      }))

    it.effect("a grant cannot be zero, fractional, or take the balance below zero", () =>
      Effect.gen(function* () {
        const { accountId } = yield* funded(2)
        const credits = yield* Credits
        for (const amount of [0, 1.5, -3]) {
          expect((yield* Effect.flip(credits.grant(accountId, amount, "x")))._tag).toBe("InvalidCommand")
        }
        expect((yield* Effect.flip(credits.grant(AccountId.make(crypto.randomUUID()), 1, "x")))._tag).toBe("AccountNotFound")
        expect(yield* balanceOf(accountId)).toBe(2)
      }))

    it.effect("a success captures the reserved credit once; a failure releases it", () =>
      Effect.gen(function* () {
        const { accountId, keyId } = yield* funded(2)
        const credits = yield* Credits
        const ok = yield* credits.reserve(accountId, keyId)
        expect(yield* credits.settle(ok, { status: 200, errorKind: null })).toEqual({ charged: true, creditsAfter: Option.some(1) })
        // Settling again (as after a lost answer) reads the ending back and changes nothing.
        expect(yield* credits.settle(ok, { status: 200, errorKind: null })).toEqual({ charged: true, creditsAfter: Option.none() })
        expect((yield* credits.settle(ok, { status: 500, errorKind: "Unexpected" })).charged).toBe(true)
        const failed = yield* credits.reserve(accountId, keyId)
        expect((yield* credits.settle(failed, { status: 500, errorKind: "GenerationFailed" })).charged).toBe(false)
        expect(yield* balanceOf(accountId)).toBe(1)
        expect(yield* ledgerSum(accountId)).toBe(1)
        const ledger = yield* credits.ledger(accountId)
        expect(ledger.filter((row) => row.usageId !== null).map((row) => [row.amount, row.usageId])).toEqual([[-1, ok]])
        const usage = yield* credits.usage(accountId)
        expect(usage.map((u) => [u.id, u.state, u.status, u.errorKind]).sort()).toEqual([
          [failed, "released", 500, "GenerationFailed"], [ok, "charged", 200, null]
        ].sort())
      }))

    it.effect("an empty balance refuses the reservation and records the refusal", () =>
      Effect.gen(function* () {
        const { accountId, keyId } = yield* funded(0)
        const credits = yield* Credits
        expect((yield* Effect.flip(credits.reserve(accountId, keyId)))._tag).toBe("NoCreditLeft")
        const [usage] = yield* credits.usage(accountId)
        expect([usage?.state, usage?.status, usage?.errorKind]).toEqual(["refused", 401, "NoCreditLeft"])
        expect(yield* balanceOf(accountId)).toBe(0)
      }))

    it.effect("concurrent requests never reserve more credits than the balance holds", () =>
      Effect.gen(function* () {
        const { accountId, keyId } = yield* funded(10)
        const credits = yield* Credits
        const results = yield* Effect.all(
          Array.from({ length: 30 }, () =>
            credits.reserve(accountId, keyId).pipe(
              Effect.tap((id) => credits.settle(id, { status: 200, errorKind: null })),
              Effect.either
            )),
          { concurrency: "unbounded" }
        )
        expect(results.filter((r) => r._tag === "Right")).toHaveLength(10)
        expect(yield* balanceOf(accountId)).toBe(0)
        expect(yield* ledgerSum(accountId)).toBe(0)
      }))

    it.effect("a request finding every credit held by requests in flight waits: a credit released is its", () =>
      Effect.gen(function* () {
        const { accountId, keyId } = yield* funded(1)
        const credits = yield* Credits
        const first = yield* credits.reserve(accountId, keyId)
        const second = yield* waitingBehindHolds(accountId, keyId)
        yield* credits.settle(first, { status: 500, errorKind: "GenerationFailed" })
        const held = yield* Fiber.join(second)
        expect(yield* credits.settle(held, { status: 200, errorKind: null })).toEqual({ charged: true, creditsAfter: Option.some(0) })
        expect((yield* credits.usage(accountId)).map((u) => [u.state, u.status]).sort()).toEqual([["charged", 200], ["released", 500]])
      }))

    it.effect("a request finding every credit held waits: a capture that empties the balance refuses it", () =>
      Effect.gen(function* () {
        const { accountId, keyId } = yield* funded(1)
        const credits = yield* Credits
        const first = yield* credits.reserve(accountId, keyId)
        const second = yield* waitingBehindHolds(accountId, keyId)
        yield* credits.settle(first, { status: 200, errorKind: null })
        expect((yield* Effect.flip(Fiber.join(second)))._tag).toBe("NoCreditLeft")
        expect((yield* credits.usage(accountId)).map((u) => [u.state, u.status]).sort()).toEqual([["charged", 200], ["refused", 401]])
      }))

    it.effect("a request finding every credit held waits 10 s at most, then is told they are held (not an empty balance), recording nothing", () =>
      Effect.gen(function* () {
        const { accountId, keyId } = yield* funded(1)
        const credits = yield* Credits
        yield* credits.reserve(accountId, keyId)
        const started = yield* Clock.currentTimeMillis
        expect((yield* Effect.flip(withClockMoving(credits.reserve(accountId, keyId))))._tag).toBe("CreditsHeld")
        expect((yield* Clock.currentTimeMillis) - started).toBeGreaterThanOrEqual(10_000)
        expect(yield* balanceOf(accountId)).toBe(1)
        expect((yield* credits.usage(accountId)).map((u) => u.state)).toEqual(["reserved"])
      }))

    it.effect("the sweep releases a hold of this process whose request is over", () =>
      Effect.gen(function* () {
        const { accountId, keyId } = yield* funded(2)
        const sql = yield* SqlClient.SqlClient
        const instance = yield* Instance
        // As a reservation whose answer was lost leaves it: held, by this process, for no request.
        const lost = crypto.randomUUID()
        yield* sql`UPDATE accounts SET reserved = reserved + 1 WHERE id = ${accountId}`
        yield* sql`INSERT INTO usage ${sql.insert({
          id: lost, accountId, keyId, instanceId: instance.id, createdAt: new Date(), state: "reserved"
        })}`
        const credits = yield* Credits
        const running = yield* credits.reserve(accountId, keyId)
        expect(yield* credits.releaseAbandoned).toBe(1)
        const states = new Map((yield* credits.usage(accountId)).map((u) => [u.id, u.state]))
        expect([states.get(lost), states.get(running)]).toEqual(["released", "reserved"])
      }))

    it.effect("a reservation whose answer is lost: a failure for the request, the credit given back", () =>
      Effect.gen(function* () {
        const { accountId, keyId } = yield* funded(1)
        const { credits, lossy } = yield* lossyCredits
        yield* lossy.loseAnswersTo("WITH held AS", "once")
        const exit = yield* Effect.exit(credits.reserve(accountId, keyId))
        expect([Exit.isFailure(exit) && Cause.isDie(exit.cause), yield* lossy.lost]).toEqual([true, 1])
        const [usage] = yield* credits.usage(accountId)
        yield* eventually(recordOf(accountId, usage?.id ?? ""), {
          usage: { state: "released", status: 500, errorKind: "ReserveFailed" },
          account: { credits: 1, reserved: 0 },
          ledgerSum: 1
        })
      }))

    it.effect("a settlement whose answer is lost is read back: charged once, and said so", () =>
      Effect.gen(function* () {
        const { accountId, keyId } = yield* funded(2)
        const { credits, lossy } = yield* lossyCredits
        const usageId = yield* credits.reserve(accountId, keyId)
        yield* lossy.loseAnswersTo("WITH settled AS", "once")
        expect((yield* withClockMoving(credits.settle(usageId, { status: 200, errorKind: null }))).charged).toBe(true)
        expect([yield* lossy.lost, yield* recordOf(accountId, usageId)]).toEqual([1, {
          usage: { state: "charged", status: 200, errorKind: null },
          account: { credits: 1, reserved: 0 },
          ledgerSum: 1
        }])
      }))

    it.effect("a settlement whose ending cannot be learnt is decided as a release: the capture undone", () =>
      Effect.gen(function* () {
        const { accountId, keyId } = yield* funded(2)
        const { credits, lossy } = yield* lossyCredits
        const usageId = yield* credits.reserve(accountId, keyId)
        yield* lossy.loseAnswersTo("WITH settled AS", "always")
        expect(yield* withClockMoving(credits.settle(usageId, { status: 200, errorKind: null }))).toEqual({
          charged: false,
          creditsAfter: Option.none()
        })
        yield* eventually(recordOf(accountId, usageId), {
          usage: { state: "released", status: 500, errorKind: "SettleFailed" },
          account: { credits: 2, reserved: 0 },
          ledgerSum: 2
        })
      }))

    it.effect("reservations of a process that is gone are released; our own are kept", () =>
      Effect.gen(function* () {
        const { accountId, keyId } = yield* funded(3)
        const sql = yield* SqlClient.SqlClient
        // A reservation made by another process that has since died (its instance is not alive).
        const orphan = yield* Effect.flatMap(Credits, (c) => c.reserve(accountId, keyId)).pipe(
          Effect.provide(Credits.Default.pipe(Layer.provide(Instance.single), Layer.provide(Layer.succeed(SqlClient.SqlClient, sql))))
        )
        const credits = yield* Credits
        const mine = yield* credits.reserve(accountId, keyId)
        // A free lock is looked at twice, 3 s apart, before its process is taken for gone: move the
        // test clock on while the sweep (which also waits on the real database) runs.
        expect(yield* withClockMoving(credits.releaseAbandoned)).toBe(1)
        const states = new Map((yield* credits.usage(accountId)).map((u) => [u.id, u.state]))
        expect([states.get(orphan), states.get(mine)]).toEqual(["released", "reserved"])
        yield* credits.settle(mine, { status: 200, errorKind: null })
        expect(yield* balanceOf(accountId)).toBe(2)
      }))
  })
}

if (!postgresUrl) describe.skip(postgresSkipReason, () => it("Credits on PostgreSQL", () => {}))
