/**
 * The SQL that batches (Batches.ts) and their workers (batchItems.ts) share: reading a batch and
 * its counts, and the ending of a batch, which queues its `batch.completed` event in the same
 * transaction (Webhooks.ts), so the event is queued once and only for what was committed.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { type BatchCounts, type BatchRow, batchSummary, countsOf, itemEventData, type ItemRow } from "../domain/batch.ts"
import { webhookEventTypes } from "../domain/webhooks.ts"
import { Webhooks } from "./Webhooks.ts"
import type { AccountId } from "../domain/ids.ts"

export const makeBatchStatements = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const webhooks = yield* Webhooks
  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

  const batchColumns = sql`id, account_id, status, webhook_url, item_events, total, created_at, completed_at`

  /** The batch `id` of `accountId` (of any account when none is given); `lock` takes its row for the transaction. */
  const batchRow = (id: string, accountId: AccountId | undefined, lock = false) =>
    Effect.map(
      sql<BatchRow & { readonly accountId: AccountId }>`SELECT ${batchColumns} FROM batches WHERE id = ${id}
        ${accountId === undefined ? sql`` : sql`AND account_id = ${accountId}`} ${lock ? sql`FOR UPDATE` : sql``}`,
      ([row]) => row
    )

  /** The counts of each of `batches`. */
  const countsOf_ = (batches: ReadonlyArray<BatchRow>) =>
    Effect.gen(function* () {
      if (batches.length === 0) return new Map<string, BatchCounts>()
      const rows = yield* sql<{ batchId: string; state: string; count: number }>`SELECT batch_id, state, count(*)::int AS count
        FROM batch_items WHERE ${sql.in("batch_id", batches.map((batch) => batch.id))} GROUP BY batch_id, state`
      return new Map(batches.map((batch) => [batch.id, countsOf(batch.total, rows.filter((row) => row.batchId === batch.id))]))
    })

  const summaryOf = (batch: BatchRow) =>
    Effect.map(countsOf_([batch]), (counts) => batchSummary(batch, counts.get(batch.id) ?? countsOf(batch.total, [])))

  /** Queues the `batch.item.completed` event of an item that has just ended, when its batch asked for them. */
  const itemEnded = (batch: BatchRow & { readonly accountId: AccountId }, item: ItemRow) =>
    batch.webhookUrl === null || !batch.itemEvents || item.state === "canceled"
      ? Effect.void
      : webhooks.enqueue({
        accountId: batch.accountId,
        url: batch.webhookUrl,
        event: { type: webhookEventTypes.batchItemCompleted, data: itemEventData(batch.id, item) }
      })

  /**
   * Ends the batch when none of its items is left to run: `completed`, or `canceled` if DELETE
   * canceled some, with its `batch.completed` event. Run in the transaction that ended the last
   * items, with the batch row locked first, so of two transactions ending its last two items the
   * second sees the first's and exactly one ends the batch.
   */
  const endIfDone = (batchId: string) =>
    Effect.gen(function* () {
      const [left] = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM batch_items
        WHERE batch_id = ${batchId} AND state IN ('queued', 'running')`
      if ((left?.count ?? 0) > 0) return
      const [ended] = yield* sql<BatchRow & { readonly accountId: AccountId }>`UPDATE batches SET completed_at = ${yield* now},
          status = CASE WHEN status = 'canceled' THEN 'canceled' ELSE 'completed' END
        WHERE id = ${batchId} AND completed_at IS NULL RETURNING ${batchColumns}`
      if (ended === undefined || ended.webhookUrl === null) return
      const summary = yield* summaryOf(ended)
      yield* webhooks.enqueue({
        accountId: ended.accountId,
        url: ended.webhookUrl,
        event: { type: webhookEventTypes.batchCompleted, data: { batchId: summary.id, status: summary.status, counts: summary.counts } }
      })
    })

  return { now, batchColumns, batchRow, counts: countsOf_, summaryOf, itemEnded, endIfDone }
})

export type BatchStatements = Effect.Effect.Success<typeof makeBatchStatements>
