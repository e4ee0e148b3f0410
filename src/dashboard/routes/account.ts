/** The Overview page (README, Dashboard: Overview and Usage): balance, subscription, keys; the Usage page is `usage.ts`. */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { Accounts } from "../../services/Accounts.ts"
import { ApiKeys } from "../../services/ApiKeys.ts"
import { DashboardConfig } from "../../config/DashboardConfig.ts"
import { htmlPage, queryParam } from "../http.ts"
import { overviewPage } from "../pages/account.ts"
import { CurrentSession, viewer, withSession } from "../session.ts"
import { noticeOf } from "./notices.ts"

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
