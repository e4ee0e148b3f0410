/**
 * Credit balances, the ledger that explains them, and per-request reservations (spec §1, §8;
 * issue 3 §6). A `/describe` request reserves one credit at check 2 and settles it when it ends:
 * captured on success, released on any failure, in one transaction with its usage row, so a crash
 * can never charge a failure, charge twice, or lose a credit. A balance never goes below zero.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Clock, Effect, HashSet, Metric, Option, Ref, Schedule, Schema } from "effect"
import { AccountNotFound, InvalidCommand, NoCreditLeft } from "../domain/errors.ts"
import { LedgerEntry, Usage } from "../domain/models.ts"
import { creditsCharged, reservationsOpen } from "../metrics.ts"
import { Instance } from "./Instance.ts"

/** How a request ended: 200 captures the reserved credit, anything else releases it. */
export interface Outcome {
  readonly status: number
  readonly errorKind: string | null
}

/** Balances are PostgreSQL `integer`s. */
const maxBalance = 2_147_483_647

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
     * Check 2 of §4.1: holds one credit for a request, or records the refusal and fails with
     * `NoCreditLeft`. Returns the usage id that `settle` takes. No key: the dashboard's Try it.
     */
    const reserve = (accountId: string, keyId: string | null) =>
      Effect.gen(function* () {
        const createdAt = yield* now
        // One statement, so one round trip and atomic without a transaction: the hold, and the
        // usage row that records it (or the refusal).
        const [usage] = yield* sql<{ state: "reserved" | "refused"; id: string }>`WITH held AS (
            UPDATE accounts SET reserved = reserved + 1
            WHERE id = ${accountId} AND credits > reserved RETURNING id
          ), outcome AS (
            SELECT EXISTS (SELECT 1 FROM held) AS reserved
          )
          INSERT INTO usage (id, account_id, key_id, instance_id, created_at, state, status, error_kind, settled_at)
          SELECT ${crypto.randomUUID()}::uuid, ${accountId}::uuid, ${keyId}::uuid, ${instance.id}, ${createdAt}::timestamptz,
            CASE WHEN reserved THEN 'reserved' ELSE 'refused' END,
            CASE WHEN reserved THEN NULL ELSE 401 END,
            CASE WHEN reserved THEN NULL ELSE 'NoCreditLeft' END,
            CASE WHEN reserved THEN NULL ELSE ${createdAt}::timestamptz END
          FROM outcome
          RETURNING id, state`
        return usage?.state === "reserved" ? Option.some(usage.id) : Option.none()
      }).pipe(
        Effect.orDie,
        Effect.tap(Option.match({ onNone: () => Effect.void, onSome: () => Metric.increment(reservationsOpen) })),
        Effect.flatMap(Option.match({ onNone: () => new NoCreditLeft(), onSome: Effect.succeed })),
        Effect.withSpan("Credits.reserve")
      )

    /**
     * Ends a reservation once, giving the balance after; a second call (or one for a released
     * reservation) changes nothing and gives none.
     */
    const settle = (usageId: string, outcome: Outcome) =>
      Effect.gen(function* () {
        const settledAt = yield* now
        const charged = outcome.status === 200
        // One statement (atomic, one round trip): the usage row, the balance and, for a charge, its
        // ledger row. Only a reservation still held is settled, so a second call changes nothing.
        const [account] = yield* sql<{ credits: number }>`WITH settled AS (
            UPDATE usage SET state = ${charged ? "charged" : "released"}, settled_at = ${settledAt},
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
          SELECT credits FROM account`
        return Option.fromNullable(account?.credits)
      }).pipe(
        Effect.orDie,
        Effect.tap(Option.match({
          onNone: () => Effect.void,
          onSome: () => (outcome.status === 200 ? Metric.increment(creditsCharged) : Effect.void)
        })),
        Effect.withSpan("Credits.settle")
      )

    /**
     * `settle`, and when the database cannot take it (an outage), a background retry that releases
     * the credit once the database is back, so the hold never outlives the outage. It releases
     * rather than captures: the client of a failed settle was answered with a 500.
     */
    const unsettled = yield* Ref.make(HashSet.empty<string>())
    const releaseUnsettled = (usageId: string) =>
      settle(usageId, { status: 500, errorKind: "SettleFailed" }).pipe(
        Effect.zipRight(Ref.update(unsettled, HashSet.remove(usageId)))
      )
    // `credit_reservations_open` counts this process's own holds: up at `reserve`, down here
    // (the sweep settles other processes' holds, which this one never counted).
    const settleOrRelease = (usageId: string, outcome: Outcome) =>
      settle(usageId, outcome).pipe(
        Effect.ensuring(Metric.incrementBy(reservationsOpen, -1)),
        Effect.tapErrorCause(() =>
          Ref.update(unsettled, HashSet.add(usageId)).pipe(
            Effect.zipRight(
              releaseUnsettled(usageId).pipe(
                Effect.sandbox,
                Effect.retry(Schedule.exponential("200 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))),
                Effect.forkDaemon
              )
            )
          )
        )
      )

    /** Before holding a new credit, give back those a failed settle still holds (first success wins). */
    const releaseAllUnsettled = Effect.flatMap(Ref.get(unsettled), (ids) =>
      Effect.forEach(ids, (id) => Effect.ignore(Effect.sandbox(releaseUnsettled(id))), { discard: true })
    )

    /**
     * Releases the reservations of service processes that are gone (crashed or killed), so their
     * credits come back. Run at start-up and periodically.
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
          yield* settle(id, { status: 500, errorKind: "Abandoned" })
        }
        released += reservations.length
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
      reserve: (accountId: string, keyId: string | null) => Effect.zipRight(releaseAllUnsettled, reserve(accountId, keyId)),
      settle: settleOrRelease,
      releaseAbandoned,
      ledger: (accountId: string) => ledger(accountId).pipe(Effect.orDie),
      usage: (accountId: string) => usage(accountId).pipe(Effect.orDie)
    } as const
  })
}) {}
