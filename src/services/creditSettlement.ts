/**
 * The ending of credit reservations (Credits.ts): settling one once its request is over, giving a
 * credit back in the background when the database cannot take the ending now, and sweeping the
 * reservations nobody will settle. Keeps the requests of this process in flight, and the signal
 * that wakes requests waiting for a credit (creditReservation.ts).
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import { creditsCharged, reservationsOpen } from "../metrics.ts"
import type { CreditStatements, Outcome, Owner } from "./creditStatements.ts"
import { Instance } from "./Instance.ts"
import type { AccountId } from "../domain/ids.ts"

/** How long a settlement whose statement failed is tried again before it is decided as a release. */
const settleRetryFor = Duration.seconds(3)

/** How long a reservation waits for its account's pending give-backs before it goes on without them. */
const pendingWait = Duration.seconds(1)

/** A give-back tried in the background, and whose credit it is (unknown when its reservation never arrived). */
interface Pending {
  readonly accountId: Option.Option<AccountId>
  readonly attempt: Effect.Effect<void, SqlError>
}

export const makeSettlement = ({ abandon, settleStatement, otherHolders, heldBy }: CreditStatements) =>
  Effect.gen(function* () {
    const instance = yield* Instance

    /**
     * Requests of this process from before their reservation until it is settled (or handed to
     * `abandonLater`): a hold of this process that is not here belongs to no request.
     */
    const live = yield* Ref.make(HashMap.empty<string, Owner>())
    const forget = (usageId: string) => Ref.update(live, HashMap.remove(usageId))

    /**
     * Abandons in the background until the database takes it, so the credit never stays held past
     * an outage; a reservation first runs what is still pending for its account (first success
     * wins), so that a credit the database could not take back a moment ago is not missing from
     * the balance it is checked against.
     */
    const unsettled = yield* Ref.make(HashMap.empty<string, Pending>())
    const abandonLater = (usageId: string, outcome: Outcome) =>
      Effect.gen(function* () {
        const owner = HashMap.get(yield* Ref.get(live), usageId)
        yield* forget(usageId)
        const attempt = abandon(usageId, outcome, owner).pipe(
          Effect.zipRight(Ref.update(unsettled, HashMap.remove(usageId)))
        )
        yield* Ref.update(unsettled, HashMap.set(usageId, { accountId: Option.map(owner, (o) => o.accountId), attempt }))
        yield* attempt.pipe(
          Effect.retry(Schedule.exponential("200 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))),
          Effect.forkDaemon
        )
      })
    /**
     * The account's pending give-backs, together and for at most `pendingWait`: another account's
     * (a row locked, a statement stuck) never holds a request up, and the background goes on with
     * what is left.
     */
    const abandonPending = (accountId: AccountId) =>
      Effect.flatMap(Ref.get(unsettled), (pending) =>
        Effect.forEach(
          [...HashMap.values(pending)].filter((each) => Option.contains(each.accountId, accountId)),
          ({ attempt }) => Effect.ignore(Effect.sandbox(attempt)),
          { concurrency: "unbounded", discard: true }
        )).pipe(Effect.timeoutOption(pendingWait), Effect.asVoid)

    /**
     * Fired when a settlement may let a waiting request through or end its wait: a release frees a
     * credit, a capture that empties the balance makes the wait pointless.
     */
    const settledSignal = yield* Ref.make(yield* Deferred.make<void>())
    const signalSettled = Effect.flatMap(Deferred.make<void>(), (next) =>
      Effect.flatMap(Ref.getAndSet(settledSignal, next), (previous) => Deferred.succeed(previous, undefined))
    )

    /**
     * Ends a reservation once: captured for a 200, released otherwise. A statement that fails or
     * cannot tell is repeated for a few seconds (a repeat reads back what a lost answer said); if
     * the ending is still unknown it is decided as a release, in the background until the database
     * takes it, and `charged` is false: the client must then be answered with a failure.
     */
    const settle = (usageId: string, outcome: Outcome) =>
      settleStatement(usageId, outcome).pipe(
        Effect.filterOrFail((ended) => ended.state !== "reserved", () => new Cause.NoSuchElementException("undecided")),
        Effect.retry(Schedule.spaced("250 millis").pipe(Schedule.upTo(settleRetryFor))),
        Effect.tap((ended) => forget(usageId).pipe(Effect.zipRight(
          ended.state === "released" || Option.exists(ended.credits, (credits) => credits === 0) ? signalSettled : Effect.void
        ))),
        Effect.map((ended) => ({ charged: ended.state === "charged", creditsAfter: ended.credits })),
        Effect.tap(({ charged, creditsAfter }) =>
          charged && Option.isSome(creditsAfter) ? Metric.increment(creditsCharged) : Effect.void
        ),
        Effect.catchAllCause((cause) =>
          Effect.logWarning("a credit could not be settled; it is released in the background", cause).pipe(
            Effect.zipRight(abandonLater(usageId, outcome.status === 200 ? { status: 500, errorKind: "SettleFailed" } : outcome)),
            Effect.as({ charged: false, creditsAfter: Option.none<number>() })
          )
        ),
        // `credit_reservations_open` counts this process's own holds: up at `reserve`, down here
        // (the sweep settles other processes' holds, which this one never counted).
        Effect.ensuring(Metric.incrementBy(reservationsOpen, -1)),
        Effect.uninterruptible,
        Effect.withSpan("Credits.settle")
      )

    /**
     * Releases the reservations nobody will settle, so their credits come back: those of service
     * processes that are gone (crashed or killed), and this process's own whose request is over
     * (a reservation whose answer was lost). Run at start-up and periodically.
     */
    const releaseAbandoned = Effect.gen(function* () {
      let released = 0
      for (const instanceId of yield* otherHolders) {
        if (yield* instance.isAlive(instanceId)) continue
        const reservations = yield* heldBy(instanceId)
        for (const id of reservations) {
          yield* settleStatement(id, { status: 500, errorKind: "Abandoned" })
        }
        released += reservations.length
      }
      // `live` read after the rows: a request enters it before its reservation is written.
      const own = yield* heldBy(instance.id)
      const running = yield* Ref.get(live)
      for (const id of own) {
        if (HashMap.has(running, id)) continue
        yield* settleStatement(id, { status: 500, errorKind: "Abandoned" })
        released += 1
      }
      return released
    }).pipe(Effect.orDie, Effect.withSpan("Credits.releaseAbandoned"))

    return {
      /** Enters a request of this process in flight, before its reservation is written. */
      track: (usageId: string, owner: Owner) => Ref.update(live, HashMap.set(usageId, owner)),
      forget,
      abandonLater,
      abandonPending,
      /** The signal the next settlement fires; taken before a look, so a settlement after it is not missed. */
      nextSettlement: Ref.get(settledSignal),
      settle,
      releaseAbandoned
    }
  })

export type Settlement = Effect.Effect.Success<ReturnType<typeof makeSettlement>>
