/**
 * Credit balances, the ledger that explains them, and per-request reservations (spec §1, §8;
 * issue 3 §6). A `/describe` request reserves one credit at check 2 and settles it when it ends:
 * captured on success, released on any failure, in one transaction with its usage row, so a crash
 * can never charge a failure, charge twice, or lose a credit. A balance never goes below zero.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Cause, Clock, Deferred, Duration, Effect, Exit, HashMap, Metric, Option, Ref, Schedule, Schema } from "effect"
import { AccountNotFound, InvalidCommand, NoCreditLeft } from "../domain/errors.ts"
import { LedgerEntry, Usage } from "../domain/models.ts"
import { currentRequestId } from "../domain/requestId.ts"
import { creditsCharged, reservationsOpen } from "../metrics.ts"
import { Instance } from "./Instance.ts"

/** How a request ended: 200 captures the reserved credit, anything else releases it. */
export interface Outcome {
  readonly status: number
  readonly errorKind: string | null
}

/** Balances are PostgreSQL `integer`s. */
const maxBalance = 2_147_483_647

/** Whose request a reservation is for. */
interface Owner {
  readonly accountId: string
  readonly keyId: string | null
}

/** `Effect.uninterruptibleMask`'s restore: where a reservation may be interrupted. */
type Restore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/** How long a request waits for credits held by requests in flight (README, "Behaviour the spec leaves open"). */
const holdWait = Duration.seconds(10)

/** How often a waiting request looks again, besides when a request of this process settles. */
const holdPoll = Duration.seconds(1)

/** How long a settlement whose statement failed is tried again before it is decided as a release. */
const settleRetryFor = Duration.seconds(3)

export class Credits extends Effect.Service<Credits>()("Credits", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const instance = yield* Instance
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    const balanceRow = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ credits: Schema.Number }),
      execute: (id) => sql`SELECT credits FROM accounts WHERE id = ${id} AND deleted_at IS NULL FOR UPDATE`
    })

    /** Adds (or with a negative amount, removes) credits, with a ledger row giving the reason. */
    const grant = (accountId: string, amount: number, reason: string) =>
      Effect.gen(function* () {
        if (!Number.isSafeInteger(amount) || amount === 0) {
          return yield* new InvalidCommand({ message: "the amount must be a non-zero whole number" })
        }
        if (Math.abs(amount) > maxBalance) {
          return yield* new InvalidCommand({ message: `the amount must be at most ${maxBalance}` })
        }
        if (!Schema.is(Schema.UUID)(accountId)) return yield* new AccountNotFound()
        const { credits } = yield* balanceRow(accountId).pipe(
          Effect.orDie,
          Effect.flatMap(Option.match({ onNone: () => new AccountNotFound(), onSome: Effect.succeed }))
        )
        if (credits + amount > maxBalance) {
          return yield* new InvalidCommand({ message: `the balance is ${credits}, it cannot exceed ${maxBalance}` })
        }
        const [account] = yield* sql<{ credits: number }>`UPDATE accounts SET credits = credits + ${amount}
          WHERE id = ${accountId} AND credits + ${amount} >= reserved RETURNING credits`.pipe(Effect.orDie)
        if (account === undefined) {
          return yield* new InvalidCommand({ message: `the balance is ${credits}, it cannot go below what is reserved` })
        }
        yield* sql`INSERT INTO credit_ledger ${sql.insert({
          id: crypto.randomUUID(), accountId, amount, reason, usageId: null, createdAt: yield* now
        })}`.pipe(Effect.orDie)
        return account.credits
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Credits.grant"))

    /**
     * The statement of check 2 (§4.1): one statement, so one round trip and atomic without a
     * transaction: the hold, and the usage row that records it (or the refusal). With `mayWait`, a
     * request that finds every credit of a positive balance held by requests in flight records
     * nothing and is told `busy`. The id is the caller's, so a lost answer can be looked up.
     */
    const reserveStatement = (usageId: string, accountId: string, keyId: string | null, mayWait: boolean) =>
      Effect.gen(function* () {
        const createdAt = yield* now
        const requestId = yield* currentRequestId
        const [usage] = yield* sql<{ state: "reserved" | "refused" }>`WITH held AS (
            UPDATE accounts SET reserved = reserved + 1
            WHERE id = ${accountId} AND credits > reserved RETURNING id
          ), outcome AS (
            SELECT EXISTS (SELECT 1 FROM held) AS reserved,
              ${mayWait}::boolean AND EXISTS (SELECT 1 FROM accounts WHERE id = ${accountId} AND credits > 0) AS busy
          )
          INSERT INTO usage (id, account_id, key_id, instance_id, created_at, state, status, error_kind, settled_at, request_id)
          SELECT ${usageId}::uuid, ${accountId}::uuid, ${keyId}::uuid, ${instance.id}, ${createdAt}::timestamptz,
            CASE WHEN reserved THEN 'reserved' ELSE 'refused' END,
            CASE WHEN reserved THEN NULL ELSE 401 END,
            CASE WHEN reserved THEN NULL ELSE 'NoCreditLeft' END,
            CASE WHEN reserved THEN NULL ELSE ${createdAt}::timestamptz END,
            ${requestId}::text
          FROM outcome WHERE reserved OR NOT busy
          RETURNING state`
        return usage?.state ?? "busy"
      })

    /**
     * The ending of a reservation, in one statement (atomic, one round trip): the usage row, the
     * balance and, for a charge, its ledger row. Only a reservation still held is settled, so a
     * repeat changes nothing; whatever it did, it answers how the reservation ended, so a repeat
     * after a lost answer reads the ending back. `reserved` means still undecided.
     */
    const settleStatement = (usageId: string, outcome: Outcome) =>
      Effect.gen(function* () {
        const settledAt = yield* now
        const charged = outcome.status === 200
        const ending = charged ? "charged" : "released"
        const [row] = yield* sql<{ credits: number | null; state: string | null }>`WITH settled AS (
            UPDATE usage SET state = ${ending}, settled_at = ${settledAt},
              status = ${outcome.status}, error_kind = ${outcome.errorKind}
            WHERE id = ${usageId} AND state = 'reserved' RETURNING account_id
          ), account AS (
            UPDATE accounts SET credits = credits - ${charged ? 1 : 0}, reserved = reserved - 1
            FROM settled WHERE accounts.id = settled.account_id RETURNING accounts.id, accounts.credits
          ), charge AS (
            INSERT INTO credit_ledger (id, account_id, amount, reason, usage_id, created_at)
            SELECT ${crypto.randomUUID()}::uuid, id, -1, 'describe', ${usageId}::uuid, ${settledAt}::timestamptz FROM account
            WHERE ${charged}::boolean
          )
          SELECT (SELECT credits FROM account) AS credits,
            CASE WHEN EXISTS (SELECT 1 FROM settled) THEN ${ending}::text
              ELSE (SELECT state FROM usage WHERE id = ${usageId}) END AS state`
        return { credits: Option.fromNullable(row?.credits), state: row?.state ?? null }
      })

    /**
     * Gives back the credit of a request answered with a failure, whatever became of its statements:
     * a hold is released; a capture whose answer was lost is undone (its ledger row goes, as if never
     * made: the client saw a failure, §1); a reservation that never arrived is recorded as released,
     * so that should it arrive late it conflicts and is rolled back. In a transaction whose first
     * statement waits for any statement still writing the row.
     */
    const abandon = (usageId: string, outcome: Outcome, owner: Option.Option<Owner>) =>
      Effect.gen(function* () {
        const at = yield* now
        const [row] = yield* sql<{ state: string }>`SELECT state FROM usage WHERE id = ${usageId} FOR UPDATE`
        if (row === undefined) {
          if (Option.isNone(owner)) return
          yield* sql`INSERT INTO usage ${sql.insert({
            id: usageId, accountId: owner.value.accountId, keyId: owner.value.keyId, instanceId: instance.id, createdAt: at,
            state: "released", status: outcome.status, errorKind: outcome.errorKind, settledAt: at
          })}`
        } else if (row.state === "reserved") {
          yield* settleStatement(usageId, outcome)
        } else if (row.state === "charged") {
          yield* sql`WITH undone AS (
              UPDATE usage SET state = 'released', settled_at = ${at}, status = ${outcome.status}, error_kind = ${outcome.errorKind}
              WHERE id = ${usageId} AND state = 'charged' RETURNING account_id
            ), refund AS (
              DELETE FROM credit_ledger WHERE usage_id = ${usageId} AND EXISTS (SELECT 1 FROM undone) RETURNING account_id
            )
            UPDATE accounts SET credits = credits + 1 FROM refund WHERE accounts.id = refund.account_id`
        }
      }).pipe(sql.withTransaction, Effect.withSpan("Credits.abandon"))

    /**
     * Requests of this process from before their reservation until it is settled (or handed to
     * `abandonLater`): a hold of this process that is not here belongs to no request.
     */
    const live = yield* Ref.make(HashMap.empty<string, Owner>())
    const forget = (usageId: string) => Ref.update(live, HashMap.remove(usageId))

    /**
     * Abandons in the background until the database takes it, so the credit never stays held past
     * an outage; `reserve` first runs what is still pending (first success wins).
     */
    const unsettled = yield* Ref.make(HashMap.empty<string, Effect.Effect<void, SqlError>>())
    const abandonLater = (usageId: string, outcome: Outcome) =>
      Effect.gen(function* () {
        const owner = HashMap.get(yield* Ref.get(live), usageId)
        yield* forget(usageId)
        const attempt = abandon(usageId, outcome, owner).pipe(
          Effect.zipRight(Ref.update(unsettled, HashMap.remove(usageId)))
        )
        yield* Ref.update(unsettled, HashMap.set(usageId, attempt))
        yield* attempt.pipe(
          Effect.retry(Schedule.exponential("200 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))),
          Effect.forkDaemon
        )
      })
    const abandonPending = Effect.flatMap(Ref.get(unsettled), (pending) =>
      Effect.forEach(HashMap.values(pending), (attempt) => Effect.ignore(Effect.sandbox(attempt)), { discard: true })
    )

    /**
     * Fired when a settlement may let a waiting request through or end its wait: a release frees a
     * credit, a capture that empties the balance makes the wait pointless.
     */
    const settledSignal = yield* Ref.make(yield* Deferred.make<void>())
    const signalSettled = Effect.flatMap(Deferred.make<void>(), (next) =>
      Effect.flatMap(Ref.getAndSet(settledSignal, next), (previous) => Deferred.succeed(previous, undefined))
    )

    /**
     * Check 2 of §4.1: holds one credit for a request, or records the refusal and fails with
     * `NoCreditLeft`. A positive balance all held by requests in flight is waited on (up to
     * `holdWait`): their credits may come back. A statement that fails (the database slow or
     * unreachable, its answer lost) answers a 500 and what it may have held is given back.
     */
    const reserveWith = (restore: Restore, accountId: string, keyId: string | null) =>
      Effect.gen(function* () {
        yield* abandonPending
        const usageId: string = crypto.randomUUID()
        yield* Ref.update(live, HashMap.set(usageId, { accountId, keyId }))
        const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(holdWait)
        while (true) {
          // Taken before the statement, so a settlement after it is not missed.
          const signal = yield* Ref.get(settledSignal)
          const mayWait = (yield* Clock.currentTimeMillis) < deadline
          const state = yield* reserveStatement(usageId, accountId, keyId, mayWait).pipe(
            Effect.tapErrorCause(() => abandonLater(usageId, { status: 500, errorKind: "ReserveFailed" })),
            Effect.orDie
          )
          if (state === "reserved") {
            yield* Metric.increment(reservationsOpen)
            return usageId
          }
          if (state === "refused") {
            yield* forget(usageId)
            return yield* new NoCreditLeft()
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
    const waitForHolds = (accountId: string, deadline: number, first: Deferred.Deferred<void>) =>
      Effect.gen(function* () {
        let signal = first
        while (true) {
          yield* Deferred.await(signal).pipe(Effect.timeoutOption(holdPoll))
          if ((yield* Clock.currentTimeMillis) >= deadline) return
          signal = yield* Ref.get(settledSignal)
          const [account] = yield* sql<{ credits: number; reserved: number }>`SELECT credits, reserved FROM accounts
            WHERE id = ${accountId}`
          if (account === undefined || account.credits === 0 || account.credits > account.reserved) return
        }
      }).pipe(Effect.orDie)

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
     * Runs `use` with a credit held (check 2 of §4.1), then settles it by `outcome` of its exit.
     * A success whose credit could not be captured becomes a defect (a 500): the client is charged
     * exactly when it is answered 200.
     */
    const withCredit = <A, E, R>(
      request: {
        readonly accountId: string
        readonly keyId: string | null
        readonly outcome: (exit: Exit.Exit<A, E>) => Outcome
        readonly onSettled?: (creditsAfter: number) => Effect.Effect<void>
      },
      use: Effect.Effect<A, E, R>
    ) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const usageId = yield* reserveWith(restore, request.accountId, request.keyId)
          const exit = yield* Effect.exit(restore(use))
          const { charged, creditsAfter } = yield* settle(usageId, request.outcome(exit))
          if (Option.isSome(creditsAfter) && request.onSettled) yield* request.onSettled(creditsAfter.value)
          if (Exit.isSuccess(exit) && !charged) return yield* Effect.dieMessage("the credit of a success could not be captured")
          return yield* exit
        })
      )

    /**
     * Releases the reservations nobody will settle, so their credits come back: those of service
     * processes that are gone (crashed or killed), and this process's own whose request is over
     * (a reservation whose answer was lost). Run at start-up and periodically.
     */
    const releaseAbandoned = Effect.gen(function* () {
      const owners = yield* sql<{ instanceId: string }>`SELECT DISTINCT instance_id FROM usage
        WHERE state = 'reserved' AND instance_id <> ${instance.id}`
      let released = 0
      for (const { instanceId } of owners) {
        if (yield* instance.isAlive(instanceId)) continue
        const reservations = yield* sql<{ id: string }>`SELECT id FROM usage
          WHERE state = 'reserved' AND instance_id = ${instanceId}`
        for (const { id } of reservations) {
          yield* settleStatement(id, { status: 500, errorKind: "Abandoned" })
        }
        released += reservations.length
      }
      // `live` read after the rows: a request enters it before its reservation is written.
      const own = yield* sql<{ id: string }>`SELECT id FROM usage WHERE state = 'reserved' AND instance_id = ${instance.id}`
      const running = yield* Ref.get(live)
      for (const { id } of own) {
        if (HashMap.has(running, id)) continue
        yield* settleStatement(id, { status: 500, errorKind: "Abandoned" })
        released += 1
      }
      return released
    }).pipe(Effect.orDie, Effect.withSpan("Credits.releaseAbandoned"))

    const ledger = SqlSchema.findAll({
      Request: Schema.String,
      Result: LedgerEntry,
      execute: (accountId) => sql`SELECT id, amount, reason, usage_id, created_at FROM credit_ledger
        WHERE account_id = ${accountId} ORDER BY seq`
    })

    const usage = SqlSchema.findAll({
      Request: Schema.String,
      Result: Usage,
      execute: (accountId) => sql`SELECT id, key_id, created_at, state, status, error_kind FROM usage
        WHERE account_id = ${accountId} ORDER BY seq DESC LIMIT 1000`
    })

    return {
      grant,
      reserve: (accountId: string, keyId: string | null) =>
        Effect.uninterruptibleMask((restore) => reserveWith(restore, accountId, keyId)),
      settle,
      withCredit,
      releaseAbandoned,
      ledger: (accountId: string) => ledger(accountId).pipe(Effect.orDie),
      usage: (accountId: string) => usage(accountId).pipe(Effect.orDie)
    } as const
  })
}) {}
