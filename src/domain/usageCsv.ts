/** The Usage page's CSV export (README, Dashboard): one line per request, newest first. */
import { csvOf } from "./csv.ts"
import { errorWords } from "./errorWords.ts"
import type { RecentRequest } from "./usageReport.ts"

/** How a key is named on the page and in the export; no key is the dashboard's Try it. */
export const keyLabel = (key: { readonly keyId: string | null; readonly keyName: string | null }, deleted = false) =>
  key.keyId === null ? "Try it (dashboard)" : `${key.keyName ?? "No name"}${deleted ? " (deleted)" : ""}`

export const usageCsvHeader = ["time", "key_id", "key_name", "status", "error_kind", "error", "credits_used", "request_id"] as const

export const usageCsv = (requests: ReadonlyArray<RecentRequest>) =>
  csvOf([
    usageCsvHeader,
    ...requests.map((r) => [
      r.createdAt.toISOString(),
      r.keyId,
      keyLabel(r),
      r.status,
      r.errorKind,
      r.errorKind === null ? "" : errorWords(r.errorKind),
      r.state === "charged" ? 1 : 0,
      r.requestId
    ])
  ])
