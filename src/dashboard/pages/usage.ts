/**
 * The Usage page (issue 5 §3): requests per day and per key as bar charts that are data tables
 * (the bars are drawn beside the numbers and hidden from screen readers, which read the numbers),
 * the latest requests with status and error kind, and the credit history.
 */
import type { LedgerEntry } from "../../domain/models.ts"
import { barPercent } from "../../domain/usageReport.ts"
import type { DayCount, KeyCount, RecentRequest } from "../../domain/usageReport.ts"
import { count, credits, dateTime, day } from "../format.ts"
import { html } from "../html.ts"
import { table } from "./components.ts"
import { page } from "./layout.ts"
import type { Viewer } from "./layout.ts"

export interface UsageView {
  readonly viewer: Viewer
  readonly balance: number
  readonly days: number
  readonly latestLimit: number
  readonly ledgerLimit: number
  readonly perDay: ReadonlyArray<DayCount>
  readonly perKey: ReadonlyArray<KeyCount>
  readonly latest: ReadonlyArray<RecentRequest>
  readonly ledger: ReadonlyArray<LedgerEntry>
}

/** The number, then its bar: an SVG whose width is a share of the longest bar. */
const bar = (value: number, max: number) =>
  html`<span class="bar-cell"><span class="bar-value">${count(value)}</span><svg class="bar" aria-hidden="true" focusable="false" viewBox="0 0 100 10" preserveAspectRatio="none"><rect width="${barPercent(value, max)}" height="10"></rect></svg></span>`

const keyLabel = (key: { readonly keyId: string | null; readonly keyName: string | null }, deleted = false) =>
  key.keyId === null ? "Try it (dashboard)" : `${key.keyName ?? "No name"}${deleted ? " (deleted)" : ""}`

const credit = (state: RecentRequest["state"]) =>
  ({ charged: "1 used", released: "None used", refused: "None used", reserved: "Held, in progress" })[state]

const ledgerReason = (entry: LedgerEntry) =>
  entry.reason === "describe" ? "Image described" : entry.reason.charAt(0).toUpperCase() + entry.reason.slice(1)

export const usagePage = (view: UsageView) => {
  const dayMax = Math.max(0, ...view.perDay.map((d) => d.requests))
  const keyMax = Math.max(0, ...view.perKey.map((k) => k.requests))
  return page({
    title: "Usage",
    viewer: view.viewer,
    body: html`<p class="balance">Balance: <strong>${credits(view.balance)}</strong></p>
    <section aria-labelledby="per-day-title">
      <h2 id="per-day-title">Requests per day</h2>
      <p class="hint">The last ${view.days} days, in UTC.</p>
      ${table({
        id: "per-day",
        caption: `Requests per day over the last ${view.days} days (UTC)`,
        head: ["Day", "Requests", "Succeeded", "Failed"],
        rows: view.perDay.map((d) => [day(d.day), bar(d.requests, dayMax), count(d.succeeded), count(d.requests - d.succeeded)])
      })}
    </section>
    <section aria-labelledby="per-key-title">
      <h2 id="per-key-title">Requests per key</h2>
      <p class="hint">The last ${view.days} days.</p>
      ${view.perKey.length === 0
        ? html`<p>No requests in the last ${view.days} days.</p>`
        : table({
          id: "per-key",
          caption: `Requests per key over the last ${view.days} days`,
          head: ["Key", "Requests", "Succeeded", "Failed"],
          rows: view.perKey.map((k) => [keyLabel(k, k.deleted), bar(k.requests, keyMax), count(k.succeeded), count(k.requests - k.succeeded)])
        })}
    </section>
    <section aria-labelledby="latest-title">
      <h2 id="latest-title">Latest requests</h2>
      <p class="hint">The latest ${view.latestLimit}, newest first. Requests refused for a missing or wrong key belong to no account and are not shown.</p>
      ${view.latest.length === 0
        ? html`<p>No requests yet.</p>`
        : table({
          id: "latest",
          caption: `Latest requests, newest first`,
          head: ["Time", "Key", "Status", "Error", "Credit"],
          rows: view.latest.map((r) => [dateTime(r.createdAt), keyLabel(r), r.status ?? "Pending", r.errorKind ?? "None", credit(r.state)])
        })}
    </section>
    <section aria-labelledby="ledger-title">
      <h2 id="ledger-title">Credit history</h2>
      <p class="hint">The latest ${view.ledgerLimit} changes, newest first.</p>
      ${view.ledger.length === 0
        ? html`<p>No credit changes yet.</p>`
        : table({
          id: "ledger",
          caption: `Credit history, newest first`,
          head: ["Time", "Change", "Reason"],
          rows: view.ledger.map((e) => [dateTime(e.createdAt), e.amount > 0 ? `+${count(e.amount)}` : `−${count(-e.amount)}`, ledgerReason(e)])
        })}
    </section>`
  })
}
