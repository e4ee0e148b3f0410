/**
 * The session middleware of the dashboard (README, Dashboard): pages behind a log-in get the session and
 * its account; posts must carry the session's CSRF token; the log-in and sign-up forms, made
 * before any session, carry the value of a cookie of their own instead (double submit).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { CsrfRejected } from "../domain/dashboard.ts"
import type { Account, Session } from "../domain/models.ts"
import { Accounts } from "../services/Accounts.ts"
import { randomToken } from "../services/secrets.ts"
import { Sessions } from "../services/Sessions.ts"
import { fromThisSite, sameToken } from "./csrf.ts"
import { cookieOptions, cookies, seeOther, withoutSessionCookie } from "./http.ts"
import type { Section, Viewer } from "./pages/layout.ts"
import { paths } from "./pages/layout.ts"

export class CurrentSession extends Context.Tag("CurrentSession")<CurrentSession, {
  readonly session: Session
  readonly account: Account
}>() {}

/** What the header of a page shows of the session. */
export const viewer = (section: Section | undefined) =>
  Effect.map(CurrentSession, ({ account, session }): Viewer => ({
    accountName: account.name,
    email: session.email,
    csrfToken: session.csrfToken,
    section
  }))

/** The session of the request's cookie, if it is alive. */
export const currentSession = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const session = yield* Effect.flatMap(Sessions, (sessions) => sessions.resume(request.cookies[cookies.session]))
  const account = yield* Effect.flatMap(Accounts, (accounts) => accounts.find(session.accountId))
  return { session, account }
})

/** Runs `handler` with the session; without one, the browser goes to the log-in page. */
export const withSession = <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    return yield* currentSession.pipe(
      Effect.matchEffect({
        onFailure: () => {
          const toLogin = seeOther(paths.login)
          // A cookie that no longer opens anything is cleared.
          return Effect.succeed(request.cookies[cookies.session] === undefined ? toLogin : withoutSessionCookie(request)(toLogin))
        },
        onSuccess: (current) => Effect.provideService(handler, CurrentSession, current)
      })
    )
  })

/** Behind a proxy, the public host is `X-Forwarded-Host`. */
const postedFromThisSite = (request: HttpServerRequest.HttpServerRequest) =>
  fromThisSite({
    fetchSite: request.headers["sec-fetch-site"],
    origin: request.headers.origin,
    host: request.headers["x-forwarded-host"] ?? request.headers.host
  })

/** A post of a logged-in page: the session's token, from this site. */
export const checkSessionCsrf = (given: string | null | undefined) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { session } = yield* CurrentSession
    if (!postedFromThisSite(request) || !sameToken(given ?? undefined, session.csrfToken)) return yield* new CsrfRejected()
  })

/** A post of a page shown before log-in: the token equals its cookie, from this site. */
export const checkAnonymousCsrf = (given: string | null | undefined) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!postedFromThisSite(request) || !sameToken(given ?? undefined, request.cookies[cookies.csrf])) {
      return yield* new CsrfRejected()
    }
  })

/** The token for a form shown before log-in, and the cookie that holds it (set when new). */
export const anonymousCsrf = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const existing = request.cookies[cookies.csrf]
  const token = existing !== undefined && existing.length >= 32 ? existing : randomToken()
  return {
    token,
    attach: (response: HttpServerResponse.HttpServerResponse) =>
      token === existing ? response : HttpServerResponse.unsafeSetCookie(response, cookies.csrf, token, cookieOptions(request))
  }
})
