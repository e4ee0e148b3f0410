/**
 * The Webhooks page (README, "Webhooks"): the secret (made on the first visit if no delivery has
 * made it yet) and the latest attempts; replacing the secret is confirmed on a page of its own,
 * then a POST with the session's CSRF token and a redirect (POST/redirect/GET), so a reload never
 * replaces it twice.
 */
import * as Effect from "effect/Effect"
import { AccountWebhooks } from "../../services/AccountWebhooks.ts"
import { htmlPage, queryParam, readDashboardForm, seeOther } from "../http.ts"
import { paths } from "../pages/layout.ts"
import { rotateSecretPage, webhooksPage } from "../pages/webhooks.ts"
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

export const confirmRotate = withSession(Effect.map(viewer("webhooks"), (seen) => htmlPage(rotateSecretPage({ viewer: seen }))))

export const rotateWebhookSecret = withSession(
  Effect.gen(function* () {
    yield* checkSessionCsrf((yield* readDashboardForm).get("csrf"))
    const { account } = yield* CurrentSession
    yield* Effect.flatMap(AccountWebhooks, (hooks) => hooks.rotate(account.id))
    return seeOther(`${paths.webhooks}?done=webhook-secret-rotated`)
  })
)
