/** What the dashboard's Usage page reports (README, Dashboard: Overview and Usage): rows, and the pure shaping of its charts. */
import * as Schema from "effect/Schema"
import { KeyId } from "./ids.ts"
import { Usage } from "./models.ts"
import { dayMillis } from "./time.ts"

/** Requests of one day (UTC, `YYYY-MM-DD`). */
export class DayCount extends Schema.Class<DayCount>("DayCount")({
  day: Schema.String,
  requests: Schema.Number,
  succeeded: Schema.Number
}) {}

/** Requests of one key; no key is the dashboard's Try it page. */
export class KeyCount extends Schema.Class<KeyCount>("KeyCount")({
  keyId: Schema.NullOr(KeyId),
  keyName: Schema.NullOr(Schema.String),
  deleted: Schema.Boolean,
  requests: Schema.Number,
  succeeded: Schema.Number
}) {}

export class RecentRequest extends Schema.Class<RecentRequest>("RecentRequest")({
  createdAt: Schema.DateFromSelf,
  keyId: Schema.NullOr(KeyId),
  keyName: Schema.NullOr(Schema.String),
  state: Usage.fields.state,
  status: Schema.NullOr(Schema.Number),
  errorKind: Schema.NullOr(Schema.String),
  /** The `X-Request-Id` of the request, recorded since migration 0005. */
  requestId: Schema.NullOr(Schema.String)
}) {}

/** The Usage page's periods, in days; anything else in the address means the default. */
export const usageRanges = [7, 30, 90] as const
export type UsageRange = (typeof usageRanges)[number]
export const defaultRange: UsageRange = 30

export const rangeOf = (param: string | undefined): UsageRange =>
  usageRanges.find((range) => String(range) === param) ?? defaultRange

/**
 * Whose requests the page shows: every key's, or one key's (`null` is the dashboard's Try it).
 * In the address: absent (all), `dashboard`, or a key id.
 */
export type KeyScope = { readonly all: true } | { readonly all: false; readonly keyId: KeyId | null }
export const allKeys: KeyScope = { all: true }

/** The scope a `key` parameter asks for, if it is one of `known` (the account's keys); otherwise all. */
export const keyScopeOf = (param: string | undefined, known: ReadonlyArray<KeyId | null>): KeyScope => {
  const wanted = param === "dashboard" ? null : param
  const keyId = known.find((id) => id === wanted)
  return wanted !== undefined && keyId !== undefined ? { all: false, keyId } : allKeys
}

export const keyScopeParam = (scope: KeyScope) => (scope.all ? undefined : scope.keyId ?? "dashboard")

/** The days with requests, oldest first: the table leaves the empty ones to the chart. */
export const activeDays = (days: ReadonlyArray<DayCount>) => days.filter((day) => day.requests > 0)


/** The first instant of the `days`-day period that ends with today (UTC). */
export const periodStart = (now: Date, days: number) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (days - 1) * dayMillis)

/** One row per day of the period, oldest first, days without requests included as zeros. */
export const everyDay = (counts: ReadonlyArray<DayCount>, now: Date, days: number): ReadonlyArray<DayCount> => {
  const start = periodStart(now, days).getTime()
  const byDay = new Map(counts.map((count) => [count.day, count]))
  return Array.from({ length: days }, (_, i) => {
    const date = new Date(start + i * dayMillis).toISOString().slice(0, 10)
    return byDay.get(date) ?? new DayCount({ day: date, requests: 0, succeeded: 0 })
  })
}

/** A bar's length as a share of the longest, in percent; a non-zero count always shows. */
export const barPercent = (value: number, max: number) =>
  max <= 0 || value <= 0 ? 0 : Math.max(1, Math.round((value / max) * 100))
