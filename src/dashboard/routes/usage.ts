/**
 * The Usage page and its CSV export (README, Dashboard). The period (`range`) and the key (`key`)
 * come from the address; a value the page does not offer means the default (30 days, every key),
 * never an error.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { usageCsv } from "../../domain/usageCsv.ts"
import { everyDay, keyScopeOf, periodStart, rangeOf } from "../../domain/usageReport.ts"
import { ApiKeys } from "../../services/ApiKeys.ts"
import { exportLimit, UsageReport } from "../../services/UsageReport.ts"
import { htmlPage, queryParam } from "../http.ts"
import type { KeyChoice } from "../pages/usage.ts"
import { usagePage } from "../pages/usage.ts"
import { CurrentSession, viewer, withSession } from "../session.ts"

const latestRequests = 20
const ledgerEntries = 50

/** The period, the key scope and the keys to choose from, as the address asks. */
const selection = Effect.gen(function* () {
  const { account } = yield* CurrentSession
  const now = new Date(yield* Clock.currentTimeMillis)
  const range = rangeOf(yield* queryParam("range"))
  const since = periodStart(now, range)
  const [apiKeys, perKey] = yield* Effect.all([
    Effect.flatMap(ApiKeys, (keys) => keys.list(account.id)),
    Effect.flatMap(UsageReport, (report) => report.perKey(account.id, since))
  ])
  const listed: ReadonlyArray<KeyChoice> = [
    ...apiKeys.map((key) => ({ keyId: key.id, keyName: key.name, deleted: false })),
    { keyId: null, keyName: null, deleted: false }
  ]
  const keys = [...listed, ...perKey.filter((used) => !listed.some((key) => key.keyId === used.keyId))]
  const scope = keyScopeOf(yield* queryParam("key"), keys.map((key) => key.keyId))
  return { account, now, range, since, perKey, keys, scope }
})

export const usage = withSession(
  Effect.gen(function* () {
    const { account, keys, now, perKey, range, scope, since } = yield* selection
    const report = yield* UsageReport
    const [perDay, latest, ledger] = yield* Effect.all([
      report.perDay(account.id, since, scope),
      report.requests(account.id, since, scope, latestRequests),
      report.ledger(account.id, ledgerEntries)
    ])
    return htmlPage(usagePage({
      viewer: yield* viewer("usage"),
      balance: account.credits,
      range,
      scope,
      keys,
      latestLimit: latestRequests,
      ledgerLimit: ledgerEntries,
      perDay: everyDay(perDay, now, range),
      perKey,
      latest,
      ledger
    }))
  })
)

/** The requests the page shows, all of them (up to `exportLimit`), as a CSV download. */
export const usageExport = withSession(
  Effect.gen(function* () {
    const { account, now, range, scope, since } = yield* selection
    const requests = yield* Effect.flatMap(UsageReport, (report) => report.requests(account.id, since, scope, exportLimit))
    const name = `usage-${now.toISOString().slice(0, 10)}-${range}d.csv`
    return HttpServerResponse.text(usageCsv(requests), {
      contentType: "text/csv; charset=utf-8",
      headers: { "content-disposition": `attachment; filename="${name}"` }
    })
  })
)
