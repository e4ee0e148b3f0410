/** Log-in, sign-up, invitations, password-reset links and log-out (README, Dashboard). */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { DashboardUser } from "../../domain/models.ts"
import { Sessions } from "../../services/Sessions.ts"
import { Users } from "../../services/Users.ts"
import {
  clientAddress, cookies, htmlPage, queryParam, readDashboardForm, seeOther, withKnownBrowserCookie, withoutSessionCookie, withSessionCookie
} from "../http.ts"
import type { PasswordResetInvalid } from "../../domain/dashboard.ts"
import {
  invitationInvalidPage, invitationPage, loginPage, passwordResetInvalidPage, passwordResetPage, signupPage
} from "../pages/auth.ts"
import type { Problem } from "../pages/components.ts"
import { paths } from "../pages/layout.ts"
import { anonymousCsrf, checkAnonymousCsrf, checkSessionCsrf, currentSession, withSession } from "../session.ts"
import { noticeOf } from "./notices.ts"

/** A 429's page sentence and header: when the oldest counted attempt leaves its window. */
export const tryAgainIn = (seconds: number) => `Try again in ${Math.ceil(seconds / 60)} minute(s).`
export const retryAfterHeader = (seconds: number) => HttpServerResponse.setHeader("retry-after", String(seconds))

/**
 * A new session for `user`, replacing whatever session the browser had (fixation), then the
 * overview; the browser is marked as one that logged in as the user (Sessions.knownBrowser).
 */
const logInAs = (user: DashboardUser, then: string) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const sessions = yield* Sessions
    const { session, token } = yield* sessions.start(user, request.cookies[cookies.session])
    const browser = yield* sessions.knownBrowser(user.email)
    return seeOther(then).pipe(
      withSessionCookie(request, token, session.expiresAt),
      withKnownBrowserCookie(request, browser.token, browser.expiresAt)
    )
  })

const showLogin = (status: number, view: { readonly email?: string; readonly problem?: Problem; readonly notice?: string | undefined }) =>
  Effect.gen(function* () {
    const csrf = yield* anonymousCsrf
    const { signupOpen } = yield* Users
    return csrf.attach(htmlPage(loginPage({ ...view, csrfToken: csrf.token, signupOpen }), status))
  })

/** Someone logged in already goes to the overview. */
export const loginForm = Effect.gen(function* () {
  if (Option.isSome(yield* Effect.option(currentSession))) return seeOther(paths.overview)
  return yield* showLogin(200, { notice: noticeOf(yield* queryParam("done")) })
})

export const logIn = Effect.gen(function* () {
  const form = yield* readDashboardForm
  yield* checkAnonymousCsrf(form.get("csrf"))
  const email = form.get("email") ?? ""
  const address = yield* clientAddress
  const request = yield* HttpServerRequest.HttpServerRequest
  const knownBrowser = yield* Effect.flatMap(Sessions, (sessions) => sessions.isKnownBrowser(request.cookies[cookies.knownBrowser], email))
  return yield* Effect.flatMap(Users, (users) => users.logIn({ email, password: form.get("password") ?? "", address, knownBrowser })).pipe(
    Effect.flatMap((user) => logInAs(user, paths.overview)),
    Effect.catchTags({
      LoginFailed: () => showLogin(401, { email, problem: { field: "email", message: "The e-mail address or the password is not right" } }),
      AccountClosed: () => showLogin(403, { email, problem: { message: "This account has been closed. The operator of this service can tell you more." } }),
      LoginThrottled: (refused) =>
        showLogin(429, { email, problem: { message: `Too many failed log-ins. ${tryAgainIn(refused.retryAfterSeconds)}` } })
          .pipe(Effect.map(retryAfterHeader(refused.retryAfterSeconds)))
    })
  )
})

const showSignup = (status: number, view: { readonly name?: string; readonly email?: string; readonly problem?: Problem }) =>
  Effect.gen(function* () {
    const csrf = yield* anonymousCsrf
    const { signupOpen } = yield* Users
    return csrf.attach(htmlPage(signupPage({ ...view, csrfToken: csrf.token, open: signupOpen }), signupOpen ? status : 403))
  })

export const signupForm = showSignup(200, {})

export const signUp = Effect.gen(function* () {
  const form = yield* readDashboardForm
  yield* checkAnonymousCsrf(form.get("csrf"))
  const entered = { name: form.get("name") ?? "", email: form.get("email") ?? "" }
  const address = yield* clientAddress
  return yield* Effect.flatMap(Users, (users) => users.signUp({ ...entered, password: form.get("password") ?? "", address })).pipe(
    Effect.flatMap((user) => logInAs(user, `${paths.overview}?done=welcome`)),
    Effect.catchTags({
      FormInvalid: (invalid) => showSignup(400, { ...entered, problem: invalid }),
      EmailTaken: ({ byAccount }) =>
        showSignup(409, {
          ...entered,
          problem: {
            field: "email",
            message: byAccount
              ? "An account with this e-mail address exists already, made by the service's operator: ask them for an invitation to it"
              : "An account with this e-mail address exists already: log in instead"
          }
        }),
      SignupClosed: () => showSignup(403, {}),
      SignupThrottled: (refused) =>
        showSignup(429, { ...entered, problem: { message: `Too many sign-ups from your network. ${tryAgainIn(refused.retryAfterSeconds)}` } })
          .pipe(Effect.map(retryAfterHeader(refused.retryAfterSeconds)))
    })
  )
})

export const invitationForm = Effect.gen(function* () {
  const token = (yield* queryParam("token")) ?? ""
  const invitation = yield* Effect.flatMap(Users, (users) => users.pendingInvitation(token))
  const csrf = yield* anonymousCsrf
  return csrf.attach(htmlPage(invitationPage({ csrfToken: csrf.token, token, email: invitation.email })))
}).pipe(Effect.catchTag("InvitationInvalid", () => Effect.succeed(htmlPage(invitationInvalidPage(), 404))))

export const acceptInvitation = Effect.gen(function* () {
  const form = yield* readDashboardForm
  yield* checkAnonymousCsrf(form.get("csrf"))
  const token = form.get("token") ?? ""
  const users = yield* Users
  return yield* users.acceptInvitation(token, form.get("password") ?? "").pipe(
    Effect.flatMap((user) => logInAs(user, `${paths.overview}?done=welcome`)),
    Effect.catchTags({
      FormInvalid: (invalid) =>
        Effect.gen(function* () {
          const { email } = yield* users.pendingInvitation(token)
          const csrf = yield* anonymousCsrf
          return csrf.attach(htmlPage(invitationPage({ csrfToken: csrf.token, token, email, problem: invalid }), 400))
        })
    })
  )
}).pipe(Effect.catchTag("InvitationInvalid", () => Effect.succeed(htmlPage(invitationInvalidPage(), 404))))

/** 404 for a token never made, 410 Gone for one used or expired: both say to ask for a new link. */
const resetInvalid = (invalid: PasswordResetInvalid) =>
  Effect.succeed(htmlPage(passwordResetInvalidPage(), invalid.reason === "unknown" ? 404 : 410))

export const passwordResetForm = Effect.gen(function* () {
  const token = (yield* queryParam("token")) ?? ""
  const { email } = yield* Effect.flatMap(Users, (users) => users.pendingPasswordReset(token))
  const csrf = yield* anonymousCsrf
  return csrf.attach(htmlPage(passwordResetPage({ csrfToken: csrf.token, token, email })))
}).pipe(Effect.catchTag("PasswordResetInvalid", resetInvalid))

/**
 * Sets the password, ends all of the user's sessions, then logs this browser in with a new one
 * (README, Dashboard): whoever holds the link has just proved as much as a log-in would.
 */
export const resetPassword = Effect.gen(function* () {
  const form = yield* readDashboardForm
  yield* checkAnonymousCsrf(form.get("csrf"))
  const token = form.get("token") ?? ""
  const users = yield* Users
  return yield* users.resetPassword(token, form.get("password") ?? "").pipe(
    Effect.flatMap((user) => logInAs(user, `${paths.overview}?done=password-reset`)),
    Effect.catchTags({
      FormInvalid: (invalid) =>
        Effect.gen(function* () {
          const { email } = yield* users.pendingPasswordReset(token)
          const csrf = yield* anonymousCsrf
          return csrf.attach(htmlPage(passwordResetPage({ csrfToken: csrf.token, token, email, problem: invalid }), 400))
        })
    })
  )
}).pipe(Effect.catchTag("PasswordResetInvalid", resetInvalid))

/** Ends the session at once: its cookie is cleared, and would not work again anyway. */
export const logOut = withSession(
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    yield* checkSessionCsrf((yield* readDashboardForm).get("csrf"))
    yield* Effect.flatMap(Sessions, (sessions) => sessions.end(request.cookies[cookies.session]))
    return seeOther(`${paths.login}?done=logged-out`).pipe(withoutSessionCookie(request))
  })
)
