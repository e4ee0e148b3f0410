/**
 * The items of batches as workers take and end them (BatchWorkers.ts; README, "Batches").
 *
 * Exactly once: an item's attempt is one describe (describeImage.ts), whose credit reservation is
 * the usage row with the attempt's id as its `request_id`. That row alone says whether the attempt
 * was charged, and an item's ending is written in a transaction that reads it: `succeeded` only
 * when it is `charged`, anything else only when it is neither `charged` nor still `reserved`. The
 * result is stored before the credit is captured (`storeResult`), so a charged attempt always has
 * it. An attempt whose process died is ended by another from its usage row: charged, it succeeded;
 * otherwise (its credit released by the sweep, Credits.releaseAbandoned) it is queued again.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type ItemRow, itemRowColumns } from "../domain/batch.ts"
import type { BatchItemFields } from "../domain/batchInput.ts"
import type { AccountId, KeyId } from "../domain/ids.ts"
import { makeBatchStatements } from "./batchStatements.ts"
import type { Described } from "./describeImage.ts"
import { describedAnswer } from "./describeOnce.ts"

/** An item a worker has claimed, for the attempt `attemptId`. */
export interface ClaimedItem {
  readonly id: string
  readonly batchId: string
  readonly accountId: AccountId
  readonly keyId: KeyId | null
  readonly attemptId: string
  readonly fields: BatchItemFields
}

/** How the worker saw its attempt end; the usage row has the last word (see above). */
export type Intended =
  | { readonly kind: "succeeded" }
  | { readonly kind: "failed"; readonly status: number; readonly error: string }
  | { readonly kind: "requeue" }

/** How many accounts with queued items one claim looks at before giving up until the next poll. */
const accountsPerClaim = 20

export const makeBatchItems = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const statements = yield* makeBatchStatements
  const { now } = statements

  /**
   * Claims the oldest queued item of the account waiting longest that runs fewer than
   * `perAccount` items, across every replica. Waiting longest: whose last item started longest
   * ago (never: first; `batch_turns`, by the database's clock), so that accounts take turns;
   * taken by their oldest queued item, a few accounts' long queues of slow items held every
   * worker while another's one item waited behind all of them. The account's count is read under
   * a transaction lock of the account (one claimer at a time per account), the item taken `FOR
   * UPDATE SKIP LOCKED`. `attemptId` is the caller's, entered as its own before the claim (`recover`).
   */
  const claim = (instanceId: string, attemptId: string, perAccount: number) =>
    Effect.gen(function* () {
      // Accounts already at their bound are left out here, so they never hide one that is not; a
      // deleted account's items are not run (its keys no longer work either); nor are those of an
      // account whose every credit is held (by its running items): they would only wait for one.
      const accounts = yield* sql<{ accountId: AccountId }>`SELECT queued.account_id FROM batch_items queued
          LEFT JOIN batch_turns turn ON turn.account_id = queued.account_id
        WHERE queued.state = 'queued'
          AND queued.account_id IN (SELECT id FROM accounts WHERE deleted_at IS NULL AND NOT (credits > 0 AND credits <= reserved))
          AND queued.account_id NOT IN (SELECT account_id FROM batch_items WHERE state = 'running'
            GROUP BY account_id HAVING count(*) >= ${perAccount})
        GROUP BY queued.account_id, turn.started_at
        ORDER BY turn.started_at NULLS FIRST, min(queued.seq)
        LIMIT ${accountsPerClaim}`
      for (const { accountId } of accounts) {
        const [lock] = yield* sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(hashtextextended(${`batch-account:${accountId}`}, 0)) AS locked`
        if (lock?.locked !== true) continue
        const [running] = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM batch_items
          WHERE account_id = ${accountId} AND state = 'running'`
        if ((running?.count ?? 0) >= perAccount) continue
        const [item] = yield* sql<{ id: string; batchId: string; fields: string; keyId: KeyId | null }>`WITH next AS (
            SELECT id FROM batch_items WHERE account_id = ${accountId} AND state = 'queued' ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED
          )
          UPDATE batch_items SET state = 'running', claimed_by = ${instanceId}, attempt_id = ${attemptId},
            attempts = attempts + 1, started_at = ${yield* now}
          FROM next, batches WHERE batch_items.id = next.id AND batches.id = batch_items.batch_id
          RETURNING batch_items.id, batch_items.batch_id, batch_items.fields, batches.key_id`
        if (item === undefined) continue
        yield* sql`INSERT INTO batch_turns (account_id, started_at) VALUES (${accountId}, now())
          ON CONFLICT (account_id) DO UPDATE SET started_at = EXCLUDED.started_at`
        return Option.some<ClaimedItem>({
          id: item.id, batchId: item.batchId, accountId, keyId: item.keyId, attemptId, fields: JSON.parse(item.fields)
        })
      }
      return Option.none<ClaimedItem>()
    }).pipe(sql.withTransaction, Effect.withSpan("BatchItems.claim"))

  /** The describe's 200, kept before its credit is captured (describeImage's `onDescribed`). */
  const storeResult = (item: ClaimedItem, described: Described) =>
    sql`UPDATE batch_items SET result = ${describedAnswer(described).body}, content_language = ${described.language},
      describer = ${described.describer} WHERE id = ${item.id} AND attempt_id = ${item.attemptId} AND state = 'running'`.pipe(
      Effect.asVoid,
      Effect.withSpan("BatchItems.storeResult")
    )

  /**
   * Ends an attempt as its usage row allows (see above): `done`, or `wait` while the row does not
   * allow what the worker saw yet (a credit still held, or a capture being undone in the background
   * after an outage, creditSettlement.ts). An attempt already ended is `done`.
   */
  const finish = (item: Pick<ClaimedItem, "id" | "batchId" | "attemptId">, intended: Intended) =>
    Effect.gen(function* () {
      const batch = yield* statements.batchRow(item.batchId, undefined, true)
      const [usage] = yield* sql<{ state: string }>`SELECT state FROM usage WHERE request_id = ${item.attemptId}`
      const charged = usage?.state === "charged"
      if (usage?.state === "reserved" || (charged && intended.kind === "failed") || (!charged && intended.kind === "succeeded")) {
        return "wait" as const
      }
      const at = yield* now
      // An item to run again whose batch was canceled meanwhile is canceled, as DELETE cancels
      // the items not started (Batches.ts): queued again, it would run and be charged.
      const set = charged
        ? sql`state = 'succeeded', status = 200, error = NULL, finished_at = ${at}`
        : intended.kind === "failed"
        ? sql`state = 'failed', status = ${intended.status}, error = ${intended.error}, result = NULL, finished_at = ${at}`
        : batch?.status === "canceled"
        ? sql`state = 'canceled', result = NULL, content_language = NULL, describer = NULL, finished_at = ${at}`
        : sql`state = 'queued', claimed_by = NULL, attempt_id = NULL, result = NULL, content_language = NULL, describer = NULL`
      const [ended] = yield* sql<ItemRow>`UPDATE batch_items SET ${set}
        WHERE id = ${item.id} AND attempt_id = ${item.attemptId} AND state = 'running'
        RETURNING ${sql.unsafe(itemRowColumns)}`
      if (ended === undefined || batch === undefined || ended.state === "queued") return "done" as const
      if (ended.state !== "canceled") yield* statements.itemEnded(batch, ended)
      yield* statements.endIfDone(item.batchId)
      return "done" as const
    }).pipe(sql.withTransaction, Effect.withSpan("BatchItems.finish"))

  /** The running items of service processes other than `instanceId`, by process. */
  const runningElsewhere = (instanceId: string) =>
    sql<{ id: string; batchId: string; attemptId: string; claimedBy: string }>`SELECT id, batch_id, attempt_id, claimed_by
      FROM batch_items WHERE state = 'running' AND claimed_by <> ${instanceId}`

  /** This process's running items. */
  const runningHere = (instanceId: string) =>
    sql<{ id: string; batchId: string; attemptId: string }>`SELECT id, batch_id, attempt_id
      FROM batch_items WHERE state = 'running' AND claimed_by = ${instanceId}`

  return { claim, storeResult, finish, runningElsewhere, runningHere }
})

export type BatchItems = Effect.Effect.Success<typeof makeBatchItems>
