/**
 * Give-backs the database could not take are tried in the background, and a reservation first runs
 * its own account's (creditSettlement.ts, `abandonPending`): never another account's, and never for
 * longer than a second, so one account's stuck row cannot hold up everyone's requests.
 */
import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, TestClock } from "effect"
import { AccountId } from "../../src/domain/ids.ts"
import { makeSettlement } from "../../src/services/creditSettlement.ts"
import type { CreditStatements } from "../../src/services/creditStatements.ts"
import { Instance } from "../../src/services/Instance.ts"

const stuck = AccountId.make("00000000-0000-4000-8000-000000000001")
const other = AccountId.make("00000000-0000-4000-8000-000000000002")

/** A database on which every settlement fails and every give-back of `stuck`'s never answers. */
const statements = (runs: Array<string>): CreditStatements => ({
  now: Effect.sync(() => new Date()),
  reserveStatement: () => Effect.succeed("reserved" as const),
  settleStatement: () => Effect.fail(new SqlError({ message: "the database is away" })),
  abandon: (_, __, owner) =>
    Effect.suspend(() => {
      const accountId = Option.getOrElse(Option.map(owner, (o) => o.accountId), () => "unknown")
      runs.push(accountId)
      return accountId === stuck ? Effect.never : Effect.fail(new SqlError({ message: "still away" }))
    }),
  holdsOf: () => Effect.succeed(Option.none()),
  otherHolders: Effect.succeed([]),
  heldBy: () => Effect.succeed([])
})

describe("pending give-backs and new reservations", () => {
  it.effect("a reservation runs its own account's pending give-backs, for at most a second; another account's never", () =>
    Effect.gen(function* () {
      const runs: Array<string> = []
      const settlement = yield* makeSettlement(statements(runs))
      for (const [usageId, accountId] of [["u1", stuck], ["u2", other]] as const) {
        yield* settlement.track(usageId, { accountId, keyId: null })
        // Tried for 3 s, then handed to the background.
        const settling = yield* Effect.fork(settlement.settle(usageId, { status: 200, errorKind: null }))
        yield* TestClock.adjust("4 seconds")
        expect(yield* Fiber.join(settling)).toEqual({ charged: false, creditsAfter: Option.none() })
      }
      runs.length = 0

      // The other account's own give-back is run (and fails at once); the stuck one is not touched.
      yield* settlement.abandonPending(other)
      expect(runs).toEqual([other])

      // The stuck account's own: waited on for a second, then left to the background (whose retries
      // of the other account's also run as the clock moves).
      runs.length = 0
      const waiting = yield* Effect.fork(settlement.abandonPending(stuck))
      yield* TestClock.adjust("999 millis")
      expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true)
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(waiting)
      expect(runs).toContain(stuck)
    }).pipe(Effect.provide(Instance.single)))
})
