/** Percentiles and formatting for the bench tables. */

/** Nearest-rank percentile (`p` in 0..100) of unsorted samples; NaN when there are none. */
export const percentile = (samples: ReadonlyArray<number>, p: number): number => {
  if (samples.length === 0) return Number.NaN
  const sorted = [...samples].sort((a, b) => a - b)
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)))
  return sorted[rank - 1] ?? Number.NaN
}

export const mean = (samples: ReadonlyArray<number>): number =>
  samples.length === 0 ? Number.NaN : samples.reduce((a, b) => a + b, 0) / samples.length

export const ms = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : "n/a")

export const mib = (bytes: number): string => (Number.isFinite(bytes) ? `${(bytes / 1024 ** 2).toFixed(1)} MiB` : "n/a")

export const kib = (bytes: number): string => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(1)} KiB` : "n/a")

export const bytes = (n: number): string => n.toLocaleString("en-US")

/** `a / b` as `3.21x`; n/a when either is missing or b is 0. */
export const ratio = (a: number, b: number): string =>
  Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${(a / b).toFixed(2)}x` : "n/a"

/** A Markdown table. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${row.join(" | ")} |`)
  ].join("\n")

/** Counts of each status, e.g. `200 x 96` or `200 x 90, 500 x 6`. */
export const statusSummary = (statuses: ReadonlyArray<number>): string => {
  const counts = new Map<number, number>()
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1)
  return [...counts.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s === 0 ? "error" : s} x ${n}`).join(", ")
}
