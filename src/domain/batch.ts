/**
 * Batches as the API shows them (README, "Batches"): a batch's status and counts, and each item's
 * state with the describe's answer: its result object exactly as `POST /api/describe` returns it,
 * or the status and message of its failure (§7.1).
 */
import { JsonText } from "./webhooks.ts"

/** `queued` until an item is claimed, `running`, then `completed`; `canceled` once DELETE canceled an item. */
export type BatchStatus = "queued" | "running" | "completed" | "canceled"

/**
 * What the database keeps: `queued` stands for `running` too, told apart by the counts, so that
 * claiming an item never writes (nor waits for) its batch's row.
 */
export type StoredBatchStatus = Exclude<BatchStatus, "running">

/** `queued`, `running` (a worker has it), then `succeeded`, `failed` or `canceled` (never to run). */
export type ItemState = "queued" | "running" | "succeeded" | "failed" | "canceled"

export const itemStates: ReadonlyArray<ItemState> = ["queued", "running", "succeeded", "failed", "canceled"]

export type BatchCounts = { readonly total: number } & { readonly [State in ItemState]: number }

export interface BatchRow {
  readonly id: string
  readonly status: StoredBatchStatus
  readonly webhookUrl: string | null
  readonly itemEvents: boolean
  readonly total: number
  readonly createdAt: Date
  readonly completedAt: Date | null
}

export interface ItemRow {
  readonly position: number
  readonly state: ItemState
  readonly metadata: string | null
  readonly status: number | null
  readonly error: string | null
  /** The describe's 200 body, as stored (domain/describe.ts `describeResultJson`). */
  readonly result: string | null
  /** What a describe's `Content-Language` and `X-Describer` would have said of the result. */
  readonly contentLanguage: string | null
  readonly describer: string | null
}

/** The columns of an `ItemRow`. */
export const itemRowColumns = "position, state, metadata, status, error, result, content_language, describer"

/** Counts from `(state, count)` pairs; states without items count 0. */
export const countsOf = (total: number, rows: ReadonlyArray<{ readonly state: string; readonly count: number | string }>): BatchCounts => {
  const counts: Record<string, number> = { total, queued: 0, running: 0, succeeded: 0, failed: 0, canceled: 0 }
  for (const row of rows) counts[row.state] = Number(row.count)
  return counts as BatchCounts
}

/** A batch without its items: the 202 of its creation, the list's entries, the `batch.completed` event's data. */
export const batchSummary = (batch: BatchRow, counts: BatchCounts) => ({
  id: batch.id,
  status: (batch.status === "queued" && counts.queued < counts.total ? "running" : batch.status) as BatchStatus,
  createdAt: batch.createdAt.toISOString(),
  completedAt: batch.completedAt?.toISOString() ?? null,
  webhookUrl: batch.webhookUrl,
  itemEvents: batch.itemEvents,
  counts
})

export type BatchSummary = ReturnType<typeof batchSummary>

/**
 * An item as JSON text: the stored result is spliced in as it was answered (parsing it again
 * would move integer-like keys first, domain/describe.ts). The result only once the item
 * succeeded: it is stored before its credit is captured, and a capture that cannot be confirmed
 * is undone and the item run again, or canceled, uncharged.
 */
export const itemJson = (item: ItemRow): string => {
  const head = JSON.stringify({ index: item.position, state: item.state, ...(item.status === null ? {} : { status: item.status }) })
  const tail = [
    ...(item.error === null ? [] : [`"error":${JSON.stringify(item.error)}`]),
    ...(item.result === null || item.state !== "succeeded" ? [] : [`"result":${item.result}`]),
    ...(item.contentLanguage === null || item.state !== "succeeded" ? [] : [`"language":${JSON.stringify(item.contentLanguage)}`]),
    ...(item.describer === null || item.state !== "succeeded" ? [] : [`"describer":${JSON.stringify(item.describer)}`]),
    ...(item.metadata === null ? [] : [`"metadata":${item.metadata}`])
  ]
  return tail.length === 0 ? head : `${head.slice(0, -1)},${tail.join(",")}}`
}

/** A batch with its items, as JSON text. */
export const batchJson = (summary: BatchSummary, items: ReadonlyArray<string>): string =>
  `${JSON.stringify(summary).slice(0, -1)},"items":[${items.join(",")}]}`

/** The data of a `batch.item.completed` event (README, "Batches"): the item as the API shows it, with its batch's id. */
export const itemEventData = (batchId: string, item: ItemRow): JsonText =>
  new JsonText(`{"batchId":${JSON.stringify(batchId)},${itemJson(item).slice(1)}`)
