/** The Overview and Usage pages (issue 5 §3): balance, subscription, ledger, requests. */
import { Clock, Effect } from "effect"
import { AppConfig } from "../../config.ts"
import { everyDay, periodStart } from "../../domain/usageReport.ts"
import { Accounts } from "../../services/Accounts.ts"
import { ApiKeys } from "../../services/ApiKeys.ts"
import { DashboardConfig } from "../../services/DashboardConfig.ts"
import { UsageReport } from "../../services/UsageReport.ts"
import { htmlPage, queryParam } from "../http.ts"
import { overviewPage } from "../pages/account.ts"
import { usagePage } from "../pages/usage.ts"
import { CurrentSession, viewer, withSession } from "../session.ts"
import { noticeOf } from "./notices.ts"

/** The charts cover two weeks: enough to see a trend, short enough to read on a phone. */
const chartDays = 14
const latestRequests = 20
const ledgerEntries = 50

export const overview = withSession(
  Effect.gen(function* () {
    const { account } = yield* CurrentSession
    const now = yield* Clock.currentTimeMillis
    const keys = yield* Effect.flatMap(ApiKeys, (apiKeys) => apiKeys.list(account.id))
    const done = yield* queryParam("done")
    return htmlPage(overviewPage({
      viewer: yield* viewer("overview"),
      account,
      subscription: yield* Effect.flatMap(Accounts, (accounts) => accounts.subscription(account.id)),
      activeKeys: keys.filter((key) => key.expiredAt.getTime() > now).length,
      notice: noticeOf(done === "welcome" && account.credits === 0 ? "welcome-no-credit" : done),
      creditsHelp: (yield* DashboardConfig).creditsHelp,
      publicUrl: (yield* AppConfig).publicUrl
    }))
  })
)

export const usage = withSession(
  Effect.gen(function* () {
    const { account } = yield* CurrentSession
    const report = yield* UsageReport
    const now = new Date(yield* Clock.currentTimeMillis)
    const since = periodStart(now, chartDays)
    const [perDay, perKey, latest, ledger] = yield* Effect.all([
      report.perDay(account.id, since),
      report.perKey(account.id, since),
      report.latest(account.id, latestRequests),
      report.ledger(account.id, ledgerEntries)
    ])
    return htmlPage(usagePage({
      viewer: yield* viewer("usage"),
      balance: account.credits,
      days: chartDays,
      latestLimit: latestRequests,
      ledgerLimit: ledgerEntries,
      perDay: everyDay(perDay, now, chartDays),
      perKey,
      latest,
      ledger
    }))
  })
)
