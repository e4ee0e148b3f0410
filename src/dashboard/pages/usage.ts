/**
 * The Usage page (README, Dashboard): a period of 7, 30 or 90 days and a key chosen in the
 * address (so a view can be bookmarked, and the export link downloads what is shown), requests
 * per day as a chart, per key as a table with bars, the period's latest requests with their error
 * in words and request id, and the credit history.
 */
import type { KeyId } from "../../domain/ids.ts"
import type { LedgerEntry } from "../../domain/models.ts"
import { errorWords } from "../../domain/errorWords.ts"
import { keyLabel } from "../../domain/usageCsv.ts"
import { barPercent, keyScopeParam, usageRanges } from "../../domain/usageReport.ts"
import type { DayCount, KeyCount, KeyScope, RecentRequest, UsageRange } from "../../domain/usageReport.ts"
import { count, credits, dateTime } from "../format.ts"
import { html } from "../html.ts"
import { table } from "./components.ts"
import { page, paths } from "./layout.ts"
import type { Viewer } from "./layout.ts"
import { dayChart } from "./usageChart.ts"

/** A key the filter offers: the account's keys, and any other key (deleted, Try it) with requests in the period. */
export interface KeyChoice {
  readonly keyId: KeyId | null
  readonly keyName: string | null
  readonly deleted: boolean
}

export interface UsageView {
  readonly viewer: Viewer
  readonly balance: number
  readonly range: UsageRange
  readonly scope: KeyScope
  readonly keys: ReadonlyArray<KeyChoice>
  readonly latestLimit: number
  readonly ledgerLimit: number
  readonly perDay: ReadonlyArray<DayCount>
  readonly perKey: ReadonlyArray<KeyCount>
  readonly latest: ReadonlyArray<RecentRequest>
  readonly ledger: ReadonlyArray<LedgerEntry>
}

/** The page's (or the export's) address for a period and a key. */
export const usageHref = (path: string, range: UsageRange, scope: KeyScope) => {
  const key = keyScopeParam(scope)
  return `${path}?range=${range}${key === undefined ? "" : `&key=${encodeURIComponent(key)}`}`
}

/** The number, then its bar: an SVG whose width is a share of the longest bar. */
const bar = (value: number, max: number) =>
  html`<span class="bar-cell"><span class="bar-value">${count(value)}</span><svg class="bar" aria-hidden="true" focusable="false" viewBox="0 0 100 10" preserveAspectRatio="none"><rect width="${barPercent(value, max)}" height="10"></rect></svg></span>`

const credit = (state: RecentRequest["state"]) =>
  ({ charged: "1 used", released: "None used", refused: "None used", reserved: "Held, in progress" })[state]

const ledgerReason = (entry: LedgerEntry) =>
  entry.reason === "describe" ? "Image described" : entry.reason.charAt(0).toUpperCase() + entry.reason.slice(1)

const keyValue = (keyId: string | null) => keyId ?? "dashboard"
const chosen = (scope: KeyScope, keyId: string | null) => !scope.all && scope.keyId === keyId

const controls = (view: UsageView) =>
  html`<div class="usage-controls">
    <nav aria-label="Period"><ul class="segmented">${usageRanges.map((range) =>
      html`<li><a href="${usageHref(paths.usage, range, view.scope)}"${range === view.range ? html` aria-current="page"` : ""}>${range} days</a></li>`)}</ul></nav>
    <form method="get" action="${paths.usage}" class="filter">
      <input type="hidden" name="range" value="${view.range}">
      <label for="usage-key">Key</label>
      <select id="usage-key" name="key">
        <option value="">All keys</option>
        ${view.keys.map((key) => html`<option value="${keyValue(key.keyId)}"${chosen(view.scope, key.keyId) ? html` selected` : ""}>${keyLabel(key, key.deleted)}</option>`)}
      </select>
      <button type="submit" class="button-secondary">Show</button>
    </form>
    <p class="export"><a href="${usageHref(paths.usageExport, view.range, view.scope)}" download>Download these requests (CSV)</a></p>
  </div>`

export const usagePage = (view: UsageView) => {
  const keyMax = Math.max(0, ...view.perKey.map((k) => k.requests))
  const which = view.scope.all ? "" : ` with ${keyLabel(view.keys.find((k) => chosen(view.scope, k.keyId)) ?? { keyId: null, keyName: null })}`
  return page({
    title: "Usage",
    viewer: view.viewer,
    body: html`<p class="balance">Balance: <strong>${credits(view.balance)}</strong></p>
    ${controls(view)}
    <section aria-labelledby="per-day-title">
      <h2 id="per-day-title">Requests per day</h2>
      <p class="hint">The last ${view.range} days${which}, in UTC.</p>
      ${dayChart(view.perDay)}
    </section>
    <section aria-labelledby="per-key-title">
      <h2 id="per-key-title">Requests per key</h2>
      <p class="hint">The last ${view.range} days, every key.</p>
      ${view.perKey.length === 0
        ? html`<p>No requests in the last ${view.range} days.</p>`
        : table({
          id: "per-key",
          caption: `Requests per key over the last ${view.range} days`,
          cards: true,
          head: ["Key", "Requests", "Succeeded", "Failed"],
          rows: view.perKey.map((k) => [keyLabel(k, k.deleted), bar(k.requests, keyMax), count(k.succeeded), count(k.requests - k.succeeded)])
        })}
    </section>
    <section aria-labelledby="latest-title">
      <h2 id="latest-title">Latest requests</h2>
      <p class="hint">The latest ${view.latestLimit} of the last ${view.range} days${which}, newest first; the export has them all. Requests refused for a missing or wrong key belong to no account and are not shown.</p>
      ${view.latest.length === 0
        ? html`<p>No requests in this period.</p>`
        : table({
          id: "latest",
          caption: `Latest requests, newest first`,
          cards: true,
          head: ["Time", "Key", "Status", "Error", "Credit", "Request id"],
          rows: view.latest.map((r) => [
            dateTime(r.createdAt), keyLabel(r), r.status ?? "Pending", errorWords(r.errorKind), credit(r.state),
            r.requestId === null ? html`<span class="muted">Not recorded</span>` : html`<code class="request-id">${r.requestId}</code>`
          ])
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
