/**
 * The SQL of a reservation's life (Credits.ts): the hold of check 2 (§4.1) with its usage row, its
 * settlement with the balance and the ledger, the giving back of a failure's credit, and the looks
 * that waiting requests and the sweep take. Each changing statement is one round trip and atomic.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { currentRequestId } from "../domain/requestId.ts"
import { Instance } from "./Instance.ts"
import type { AccountId, KeyId } from "../domain/ids.ts"

/** How a request ended: 200 captures the reserved credit, anything else releases it. */
export interface Outcome {
  readonly status: number
  readonly errorKind: string | null
}

/** Whose request a reservation is for. */
export interface Owner {
  readonly accountId: AccountId
  readonly keyId: KeyId | null
}

export const makeCreditStatements = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const instance = yield* Instance
  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

  /**
   * The statement of check 2 (§4.1): one statement, so one round trip and atomic without a
   * transaction: the hold, and the usage row that records it (or the refusal). A request that
   * finds every credit of a positive balance held by requests in flight records nothing and is
   * told `busy`. The id is the caller's, so a lost answer can be looked up.
   *
   * A hold commits without waiting for the disk (`synchronous_commit` off for this statement
   * alone): it answers nobody, and should the process or the machine crash before the hold's
   * settlement, the request dies with it. The settlement's commit, waited for, also makes the
   * hold durable (the log is written in order). A refusal is an answer, and waits as any commit
   * does. Only the hold: PGlite has no log writer, so a commit that does not wait stays in the
   * process's memory until one that does, and a killed process would take answered endings with it.
   */
  const reserveStatement = (usageId: string, accountId: string, keyId: KeyId | null) =>
    Effect.gen(function* () {
      const createdAt = yield* now
      const requestId = yield* currentRequestId
      const [usage] = yield* sql<{ state: "reserved" | "refused" }>`WITH held AS (
          UPDATE accounts SET reserved = reserved + 1
          WHERE id = ${accountId} AND credits > reserved RETURNING id
        ), outcome AS (
          SELECT EXISTS (SELECT 1 FROM held) AS reserved,
            EXISTS (SELECT 1 FROM accounts WHERE id = ${accountId} AND credits > 0) AS busy
        ), durability AS (
          SELECT set_config('synchronous_commit', CASE WHEN reserved THEN 'off' ELSE current_setting('synchronous_commit') END, true)
          FROM outcome
        )
        INSERT INTO usage (id, account_id, key_id, instance_id, created_at, state, status, error_kind, settled_at, request_id)
        SELECT ${usageId}::uuid, ${accountId}::uuid, ${keyId}::uuid, ${instance.id}, ${createdAt}::timestamptz,
          CASE WHEN reserved THEN 'reserved' ELSE 'refused' END,
          CASE WHEN reserved THEN NULL ELSE 401 END,
          CASE WHEN reserved THEN NULL ELSE 'NoCreditLeft' END,
          CASE WHEN reserved THEN NULL ELSE ${createdAt}::timestamptz END,
          ${requestId}::text
        FROM outcome, durability WHERE reserved OR NOT busy
        RETURNING state`
      return usage?.state ?? "busy"
    })

  /**
   * The ending of a reservation, in one statement (atomic, one round trip): the usage row, the
   * balance and, for a charge, its ledger row. Only a reservation still held is settled, so a
   * repeat changes nothing; whatever it did, it answers how the reservation ended, so a repeat
   * after a lost answer reads the ending back. `reserved` means still undecided.
   *
   * It commits as any commit does, on disk before the request is answered: the usage row is the
   * answer's record, and its commit makes the hold's durable too.
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
   * made: the client saw a failure, §1), unless its 200 was replayed meanwhile under its
   * `Idempotency-Key` (a retry has the answer, so the charge stands); a reservation that never
   * arrived is recorded as released, so that should it arrive late it conflicts and is rolled back.
   * In a transaction whose first statement waits for any statement still writing the row, a
   * replay's included.
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
            WHERE id = ${usageId} AND state = 'charged' AND replayed_at IS NULL RETURNING account_id
          ), refund AS (
            DELETE FROM credit_ledger WHERE usage_id = ${usageId} AND EXISTS (SELECT 1 FROM undone) RETURNING account_id
          )
          UPDATE accounts SET credits = credits + 1 FROM refund WHERE accounts.id = refund.account_id`
      }
    }).pipe(sql.withTransaction, Effect.withSpan("Credits.abandon"))

  /** An account's balance and holds, read without a lock (see `waitForHolds`). */
  const holdsOf = (accountId: AccountId) =>
    Effect.map(
      sql<{ credits: number; reserved: number }>`SELECT credits, reserved FROM accounts WHERE id = ${accountId}`,
      ([account]) => Option.fromNullable(account)
    )

  /** The other service processes that hold reservations. */
  const otherHolders = Effect.map(
    sql<{ instanceId: string }>`SELECT DISTINCT instance_id FROM usage WHERE state = 'reserved' AND instance_id <> ${instance.id}`,
    (rows) => rows.map((row) => row.instanceId)
  )

  /** The reservations a service process holds. */
  const heldBy = (instanceId: string) =>
    Effect.map(
      sql<{ id: string }>`SELECT id FROM usage WHERE state = 'reserved' AND instance_id = ${instanceId}`,
      (rows) => rows.map((row) => row.id)
    )

  return { now, reserveStatement, settleStatement, abandon, holdsOf, otherHolders, heldBy }
})

export type CreditStatements = Effect.Effect.Success<typeof makeCreditStatements>
