/**
 * The Batches pages (README, "Batches"): the account's latest batches with their progress, and a
 * batch's items with each result or error as the API gives them.
 */
import type { BatchSummary, ItemRow } from "../../domain/batch.ts"
import { count, dateTime } from "../format.ts"
import { html } from "../html.ts"
import { table } from "./components.ts"
import { page, paths } from "./layout.ts"
import type { Viewer } from "./layout.ts"

const statusWords = { queued: "Queued", running: "Running", completed: "Completed", canceled: "Canceled" } as const
const stateWords = { queued: "Queued", running: "Running", succeeded: "Succeeded", failed: "Failed", canceled: "Canceled" } as const

/** Items ended of all: what a progress bar would say, in words. */
const progress = (batch: BatchSummary) => {
  const ended = batch.counts.succeeded + batch.counts.failed + batch.counts.canceled
  return `${count(ended)} / ${count(batch.counts.total)}`
}

const batchHref = (id: string) => `${paths.batches}/${id}`

export const batchesPage = (view: { readonly viewer: Viewer; readonly batches: ReadonlyArray<BatchSummary>; readonly limit: number }) =>
  page({
    title: "Batches",
    viewer: view.viewer,
    body: html`<p class="hint">Batches are created with <code>POST /api/batches</code> (see the <a href="${paths.apiReference}#createBatch">API reference</a>): one credit per image described, none for a failure. The latest ${view.limit}, newest first.</p>
    ${view.batches.length === 0
      ? html`<p>No batches yet.</p>`
      : table({
        id: "batches",
        caption: "Batches, newest first",
        cards: true,
        head: ["Created", "Status", "Done", "Succeeded", "Failed", "Canceled"],
        rows: view.batches.map((batch) => [
          html`<a href="${batchHref(batch.id)}">${dateTime(new Date(batch.createdAt))}</a>`,
          statusWords[batch.status], progress(batch), count(batch.counts.succeeded), count(batch.counts.failed), count(batch.counts.canceled)
        ])
      })}`
  })

const outcome = (item: ItemRow) =>
  item.result !== null
    ? html`<code>${item.result}</code>`
    : item.error !== null
    ? html`${item.status ?? ""} ${item.error}`
    : html`<span class="muted">Not yet</span>`

export const batchPage = (view: { readonly viewer: Viewer; readonly batch: BatchSummary; readonly items: ReadonlyArray<ItemRow> }) =>
  page({
    title: "Batch",
    viewer: view.viewer,
    body: html`<p><a href="${paths.batches}">All batches</a></p>
    <dl class="facts">
      <div><dt>Id</dt><dd><code>${view.batch.id}</code></dd></div>
      <div><dt>Status</dt><dd>${statusWords[view.batch.status]}</dd></div>
      <div><dt>Done</dt><dd>${progress(view.batch)}: ${count(view.batch.counts.succeeded)} succeeded, ${count(view.batch.counts.failed)} failed, ${count(view.batch.counts.canceled)} canceled</dd></div>
      <div><dt>Created</dt><dd>${dateTime(new Date(view.batch.createdAt))}</dd></div>
    </dl>
    ${table({
      id: "items",
      caption: "The batch's items, in their order",
      cards: true,
      head: ["Item", "State", "Result or error", "Metadata"],
      rows: view.items.map((item) => [
        count(item.position), stateWords[item.state], outcome(item),
        item.metadata === null ? "" : html`<code>${item.metadata}</code>`
      ])
    })}`
  })
