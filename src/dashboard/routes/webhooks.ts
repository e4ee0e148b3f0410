/**
 * The Webhooks page (README, "Webhooks"): the secret (made on the first visit if no delivery has
 * made it yet) and the latest attempts; replacing the secret is a POST with the session's CSRF
 * token, then a redirect (POST/redirect/GET), so a reload never replaces it twice.
 */
import * as Effect from "effect/Effect"
import { AccountWebhooks } from "../../services/AccountWebhooks.ts"
import { htmlPage, queryParam, readDashboardForm, seeOther } from "../http.ts"
import { paths } from "../pages/layout.ts"
import { webhooksPage } from "../pages/webhooks.ts"
import { checkSessionCsrf, CurrentSession, viewer, withSession } from "../session.ts"
import { noticeOf } from "./notices.ts"

export const webhooks = withSession(
  Effect.gen(function* () {
    const { account } = yield* CurrentSession
    const hooks = yield* AccountWebhooks
    return htmlPage(webhooksPage({
      viewer: yield* viewer("webhooks"),
      secret: yield* hooks.secretOf(account.id),
      attempts: yield* hooks.recentAttempts(account.id),
      notice: noticeOf(yield* queryParam("done"))
    }))
  })
)

export const rotateWebhookSecret = withSession(
  Effect.gen(function* () {
    yield* checkSessionCsrf((yield* readDashboardForm).get("csrf"))
    const { account } = yield* CurrentSession
    yield* Effect.flatMap(AccountWebhooks, (hooks) => hooks.rotate(account.id))
    return seeOther(`${paths.webhooks}?done=webhook-secret-rotated`)
  })
)
