/**
 * Requests per day as a stacked bar chart, drawn on the server as inline SVG (no script, no
 * external file). The chart is an image whose text alternative is the summary above it; the
 * numbers stay readable as a table (days without requests left out) in a `<details>` below it,
 * so a 90-day period is a chart's height, not 90 rows.
 */
import { activeDays } from "../../domain/usageReport.ts"
import type { DayCount } from "../../domain/usageReport.ts"
import { count, day, dayText } from "../format.ts"
import { html } from "../html.ts"
import { table } from "./components.ts"

/** A count's height out of 100 units; a non-zero count is never too thin to see. */
const height = (value: number, max: number) => (value <= 0 || max <= 0 ? 0 : Math.max(2, (value / max) * 100))

/** Each day is 10 units wide (a bar of 8 and a gap); bars reach up to 100 units. */
const bars = (days: ReadonlyArray<DayCount>, max: number) =>
  days.map((d, i) => {
    const failed = d.requests - d.succeeded
    const total = height(d.requests, max)
    const bad = Math.min(height(failed, max), total)
    const ok = total - bad
    return d.requests === 0 ? "" : html`<g><title>${dayText(d.day)}: ${count(d.succeeded)} succeeded, ${count(failed)} failed</title><rect class="ok" x="${i * 10 + 1}" y="${(100 - ok).toFixed(2)}" width="8" height="${ok.toFixed(2)}"></rect><rect class="failed" x="${i * 10 + 1}" y="${(100 - ok - bad).toFixed(2)}" width="8" height="${bad.toFixed(2)}"></rect></g>`
  })

const summaryOf = (days: ReadonlyArray<DayCount>) => {
  const requests = days.reduce((sum, d) => sum + d.requests, 0)
  const succeeded = days.reduce((sum, d) => sum + d.succeeded, 0)
  const busiest = days.reduce<DayCount | undefined>((best, d) => (d.requests > (best?.requests ?? 0) ? d : best), undefined)
  return requests === 0
    ? "No requests in this period."
    : `${count(requests)} ${requests === 1 ? "request" : "requests"}: ${count(succeeded)} succeeded, ${count(requests - succeeded)} failed, on ${
      count(activeDays(days).length)} of ${count(days.length)} days. Busiest day: ${busiest ? `${dayText(busiest.day)} (${count(busiest.requests)})` : ""}.`
}

export const dayChart = (days: ReadonlyArray<DayCount>) => {
  const max = Math.max(0, ...days.map((d) => d.requests))
  const first = days[0]
  const last = days[days.length - 1]
  const active = activeDays(days)
  return html`<p id="per-day-summary">${summaryOf(days)}</p>
    <figure class="chart">
      <svg role="img" aria-labelledby="per-day-summary" viewBox="0 0 ${days.length * 10} 100" preserveAspectRatio="none" focusable="false">${bars(days, max)}</svg>
      <figcaption class="chart-axis" aria-hidden="true"><span>${first && dayText(first.day)}</span><span>Highest: ${count(max)}</span><span>${last && dayText(last.day)}</span></figcaption>
    </figure>
    <ul class="legend" aria-hidden="true"><li><span class="swatch ok"></span>Succeeded</li><li><span class="swatch failed"></span>Failed</li></ul>
    <details>
      <summary>Requests per day as a table</summary>
      ${active.length === 0
        ? html`<p>No requests in this period.</p>`
        : html`<p class="hint">Days without requests are left out.</p>${table({
          id: "per-day",
          caption: "Requests per day (UTC), days with requests",
          head: ["Day", "Requests", "Succeeded", "Failed"],
          rows: active.map((d) => [day(d.day), count(d.requests), count(d.succeeded), count(d.requests - d.succeeded)])
        })}`}
    </details>`
}
