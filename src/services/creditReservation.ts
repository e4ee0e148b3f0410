/**
 * Holding a credit for a request (Credits.ts): check 2 of §4.1, the wait for credits held by
 * requests in flight, and the bracket that runs a request with its credit held and settles it
 * by how the request ended.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import { CreditsHeld, NoCreditLeft } from "../domain/errors.ts"
import { reservationsOpen } from "../metrics.ts"
import type { Settlement } from "./creditSettlement.ts"
import type { CreditStatements, Outcome } from "./creditStatements.ts"
import type { AccountId, KeyId } from "../domain/ids.ts"

/**
 * The usage row of the credit `withCredit` holds, for what its request stores under that row's
 * name (Idempotency.ts: a stored 200 is replayed only once its credit is captured).
 */
export const currentUsageId = FiberRef.unsafeMake<string | null>(null)

/** `Effect.uninterruptibleMask`'s restore: where a reservation may be interrupted. */
type Restore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/**
 * How long a request waits for credits held by requests in flight (README, "Behaviour the spec
 * leaves open"); a reference, so that a test can wait less.
 */
export class CreditWait extends Context.Reference<CreditWait>()("CreditWait", {
  defaultValue: (): Duration.Duration => Duration.seconds(10)
}) {}

/** How often a waiting request looks again, besides when a request of this process settles. */
const holdPoll = Duration.seconds(1)

export const makeReservation = (
  { reserveStatement, holdsOf }: CreditStatements,
  { track, forget, abandonLater, abandonPending, nextSettlement, settle }: Settlement,
  holdWait: Duration.Duration
) => {
  /**
   * Check 2 of §4.1: holds one credit for a request, or records the refusal and fails with
   * `NoCreditLeft`. A positive balance all held by requests in flight is waited on (up to
   * `holdWait`): their credits may come back; still all held then, `CreditsHeld`, nothing recorded.
   * A statement that fails (the database slow or unreachable, its answer lost) answers a 500 and
   * what it may have held is given back.
   */
  const reserveWith = (restore: Restore, accountId: AccountId, keyId: KeyId | null) =>
    Effect.gen(function* () {
      yield* abandonPending(accountId)
      const usageId: string = crypto.randomUUID()
      yield* track(usageId, { accountId, keyId })
      const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(holdWait)
      while (true) {
        // Taken before the statement, so a settlement after it is not missed.
        const signal = yield* nextSettlement
        const state = yield* reserveStatement(usageId, accountId, keyId).pipe(
          Effect.tapErrorCause(() => abandonLater(usageId, { status: 500, errorKind: "ReserveFailed" })),
          Effect.orDie
        )
        if (state === "reserved") {
          yield* Metric.increment(reservationsOpen)
          return usageId
        }
        if (state === "refused" || (yield* Clock.currentTimeMillis) >= deadline) {
          yield* forget(usageId)
          return yield* state === "refused" ? new NoCreditLeft() : new CreditsHeld()
        }
        // Only the wait can be interrupted (the client went away): nothing is held or recorded.
        yield* restore(waitForHolds(accountId, deadline, signal)).pipe(
          Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : forget(usageId)))
        )
      }
    }).pipe(Effect.withSpan("Credits.reserve"))

  /**
   * Until a credit of the account looks free, its balance is empty, or the deadline has passed.
   * Woken by a settlement in this process, otherwise looking every `holdPoll` (the holds may be
   * another replica's); the look takes no lock, so waiting requests do not queue on the account
   * row ahead of the settlements they wait for.
   */
  const waitForHolds = (accountId: AccountId, deadline: number, first: Deferred.Deferred<void>) =>
    Effect.gen(function* () {
      let signal = first
      while (true) {
        const left = deadline - (yield* Clock.currentTimeMillis)
        yield* Deferred.await(signal).pipe(Effect.timeoutOption(Duration.min(holdPoll, Duration.millis(Math.max(0, left)))))
        if ((yield* Clock.currentTimeMillis) >= deadline) return
        signal = yield* nextSettlement
        const account = yield* holdsOf(accountId)
        if (Option.isNone(account) || account.value.credits === 0 || account.value.credits > account.value.reserved) return
      }
    }).pipe(Effect.orDie)

  /**
   * Runs `use` with a credit held (check 2 of §4.1), then settles it by `outcome` of its exit.
   * A success whose credit could not be captured becomes a defect (a 500): the client is charged
   * exactly when it is answered 200.
   */
  const withCredit = <A, E, R>(
    request: {
      readonly accountId: AccountId
      readonly keyId: KeyId | null
      readonly outcome: (exit: Exit.Exit<A, E>) => Outcome
      readonly onSettled?: (creditsAfter: number) => Effect.Effect<void>
    },
    use: Effect.Effect<A, E, R>
  ) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        const usageId = yield* reserveWith(restore, request.accountId, request.keyId)
        const exit = yield* Effect.exit(restore(Effect.locally(use, currentUsageId, usageId)))
        const { charged, creditsAfter } = yield* settle(usageId, request.outcome(exit))
        if (Option.isSome(creditsAfter) && request.onSettled) yield* request.onSettled(creditsAfter.value)
        if (Exit.isSuccess(exit) && !charged) return yield* Effect.dieMessage("the credit of a success could not be captured")
        return yield* exit
      })
    )

  return {
    reserve: (accountId: AccountId, keyId: KeyId | null) =>
      Effect.uninterruptibleMask((restore) => reserveWith(restore, accountId, keyId)),
    withCredit
  }
}
