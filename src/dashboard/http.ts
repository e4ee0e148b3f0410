/** The dashboard's HTTP plumbing: pages, redirects, cookies, small forms, security headers. */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AppConfig } from "../config/AppConfig.ts"
import { FormUnreadable, maxFormBytes } from "../domain/dashboard.ts"
import { clientAddressOf } from "../http/clientAddress.ts"
import { readSmallBody } from "../http/connections.ts"
import type { Html } from "./html.ts"

export const cookies = { session: "imd_session", csrf: "imd_csrf", knownBrowser: "imd_browser" } as const

export const htmlPage = (body: Html, status = 200) =>
  HttpServerResponse.text(body.value, { status, contentType: "text/html; charset=utf-8" })

/** After a post, the browser loads the next page with a GET (a reload never re-posts). */
export const seeOther = (location: string) => HttpServerResponse.redirect(location, { status: 303 })

/** HTTPS directly, or through a proxy that says so (the first of a chain's values is the client's). */
export const overHttps = (request: HttpServerRequest.HttpServerRequest) =>
  request.headers["x-forwarded-proto"]?.split(",")[0]?.trim().toLowerCase() === "https" || request.originalUrl.startsWith("https:")

/**
 * HttpOnly (no script reads them), SameSite=Lax (not sent on another site's posts, yet a link
 * from an e-mail still opens the dashboard logged in), Secure over HTTPS, only for `/dashboard`.
 */
export const cookieOptions = (request: HttpServerRequest.HttpServerRequest) => ({
  path: "/dashboard",
  httpOnly: true,
  sameSite: "lax" as const,
  secure: overHttps(request)
})

export const withSessionCookie = (request: HttpServerRequest.HttpServerRequest, token: string, expires: Date) =>
  HttpServerResponse.unsafeSetCookie(cookies.session, token, { ...cookieOptions(request), expires })

/** The mark of a browser that logged in (Sessions.knownBrowser): it outlives the session, and log-out. */
export const withKnownBrowserCookie = (request: HttpServerRequest.HttpServerRequest, token: string, expires: Date) =>
  HttpServerResponse.unsafeSetCookie(cookies.knownBrowser, token, { ...cookieOptions(request), expires })

export const withoutSessionCookie = (request: HttpServerRequest.HttpServerRequest) =>
  HttpServerResponse.expireCookie(cookies.session, cookieOptions(request))

/**
 * An `application/x-www-form-urlencoded` body, read up to `maxFormBytes` and within
 * `FORM_TIMEOUT_MS` (as a describe upload is within `UPLOAD_TIMEOUT_MS`).
 */
export const readDashboardForm = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { formTimeout } = yield* AppConfig
  if (Number(request.headers["content-length"] ?? 0) > maxFormBytes) return yield* new FormUnreadable({ reason: "tooLarge" })
  const empty = request.headers["content-length"] === "0"
  if (empty || !(request.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) return new URLSearchParams()
  const bytes = yield* readSmallBody(request, { maxBytes: maxFormBytes, timeout: formTimeout }, (reason) => new FormUnreadable({ reason }))
  return new URLSearchParams(new TextDecoder().decode(bytes))
})

/** The address that failed log-ins and sign-ups are counted against. */
export const clientAddress = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { trustedProxies } = yield* AppConfig
  return clientAddressOf({
    socket: Option.getOrUndefined(request.remoteAddress),
    forwardedFor: request.headers["x-forwarded-for"],
    trustedProxies
  })
})

/** A query parameter's first value. */
export const queryParam = (name: string) =>
  Effect.map(HttpServerRequest.ParsedSearchParams, (params) => {
    const value = params[name]
    return Array.isArray(value) ? value[0] : value
  })

/**
 * On every dashboard response: no inline script or style (images: this site's, and `blob:` for the
 * Try it preview of a chosen file), no framing, a referrer only for this
 * site (a Try it form's address carries its token; `no-referrer` would make posts' `Origin`
 * `null`), and pages never cached (one shows a new key).
 */
export const securityHeaders = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeaders(response, {
    "content-security-policy":
      "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' blob:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cache-control": response.headers["cache-control"] ?? "no-store"
  })
