/**
 * "Forgot password" (README, Dashboard): with `SMTP_URL`, sends a one-time reset link to the
 * address given, answering alike whether or not it has an account; without, says to ask the
 * operator (`user reset-link`).
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AppConfig } from "../../config/AppConfig.ts"
import { Mailer } from "../../services/Mailer.ts"
import { Users } from "../../services/Users.ts"
import { clientAddress, htmlPage, readDashboardForm } from "../http.ts"
import { forgotPasswordPage } from "../pages/auth.ts"
import type { ForgotPasswordView } from "../pages/auth.ts"
import { paths } from "../pages/layout.ts"
import { anonymousCsrf, checkAnonymousCsrf } from "../session.ts"
import { retryAfterHeader, tryAgainIn } from "./auth.ts"

const show = (status: number, view: Omit<ForgotPasswordView, "csrfToken" | "mailEnabled">) =>
  Effect.gen(function* () {
    const csrf = yield* anonymousCsrf
    const { enabled } = yield* Mailer
    return csrf.attach(htmlPage(forgotPasswordPage({ ...view, csrfToken: csrf.token, mailEnabled: enabled }), status))
  })

export const forgotPasswordForm = show(200, {})

const resetMail = (to: string, link: string) => ({
  to,
  subject: "Reset your Image metadata password",
  text: `Someone, hopefully you, asked to reset the password of the Image metadata dashboard for ${to}.

Choose a new password here (the link works once, for 24 hours):
${link}

Choosing one logs you out everywhere else. If you did not ask, ignore this e-mail: your password stays as it is.
`
})

/**
 * The e-mail is sent in the background: the answer takes as long whether or not there is one to
 * send, so its timing does not tell who has an account either. A failure is logged, without the
 * address or the link.
 */
export const requestPasswordReset = Effect.gen(function* () {
  const form = yield* readDashboardForm
  yield* checkAnonymousCsrf(form.get("csrf"))
  const mailer = yield* Mailer
  if (!mailer.enabled) return yield* show(200, {})
  const email = form.get("email") ?? ""
  const { publicUrl } = yield* AppConfig
  const address = yield* clientAddress
  return yield* Effect.flatMap(Users, (users) => users.requestPasswordReset(email, address)).pipe(
    Effect.tap(Option.match({
      onNone: () => Effect.void,
      onSome: ({ token, user }) =>
        mailer.send(resetMail(user.email, `${publicUrl}${paths.resetPassword}?token=${token}`)).pipe(
          Effect.catchAll((failed) => Effect.logWarning("password-reset e-mail not sent").pipe(Effect.annotateLogs({ reason: failed.message }))),
          Effect.forkDaemon
        )
    })),
    Effect.flatMap(() => show(200, { email: email.trim(), sent: true })),
    Effect.catchTags({
      FormInvalid: (problem) => show(400, { email, problem }),
      ResetThrottled: (refused) =>
        show(429, { email, problem: { message: `Too many requests from your network. ${tryAgainIn(refused.retryAfterSeconds)}` } })
          .pipe(Effect.map(retryAfterHeader(refused.retryAfterSeconds)))
    })
  )
})
