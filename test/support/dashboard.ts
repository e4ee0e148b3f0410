/**
 * A browser without a browser, for the dashboard's HTTP tests: `fetch` with a cookie jar, no
 * redirect following (tests look at each 303), and the `Origin` a browser sends with its posts.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { expect } from "vitest"
import { runCommand } from "../../src/cli/commands.ts"
import { Credits } from "../../src/services/Credits.ts"
import { serverPort } from "./describe.ts"
import { AccountId } from "../../src/domain/ids.ts"

export interface Answer {
  readonly status: number
  readonly body: string
  readonly location: string | null
  /** The raw `Set-Cookie` lines of this answer. */
  readonly setCookies: ReadonlyArray<string>
  readonly headers: Headers
}

/** Where the test server listens. */
export const baseUrl = Effect.map(serverPort, (port) => `http://127.0.0.1:${port}`)

export interface Visitor {
  readonly cookies: Map<string, string>
  readonly get: (path: string, headers?: Record<string, string>) => Effect.Effect<Answer>
  readonly head: (path: string) => Effect.Effect<Answer>
  readonly post: (path: string, fields: Record<string, string>, headers?: Record<string, string>) => Effect.Effect<Answer>
  readonly postBody: (path: string, body: FormData, headers?: Record<string, string>) => Effect.Effect<Answer>
}

let visitors = 0

/**
 * One person's browser: cookies kept between requests as a browser keeps them for `/dashboard`.
 * Each comes from an address of its own, as the test servers' proxy would say (`X-Forwarded-For`,
 * `TRUSTED_PROXIES=1` in test/support/config.ts), so the per-address bounds of one test never reach
 * another's visitors.
 */
export const visitor = (base: string): Visitor => {
  const address = `198.18.${Math.floor(++visitors / 250) % 250}.${visitors % 250}`
  const cookies = new Map<string, string>()
  const remember = (lines: ReadonlyArray<string>) => {
    for (const line of lines) {
      const [pair = "", ...attributes] = line.split(";")
      const name = pair.slice(0, pair.indexOf("="))
      const value = pair.slice(pair.indexOf("=") + 1)
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) ||
        attributes.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split("=")[1] ?? "") <= Date.now())
      if (expired) cookies.delete(name)
      else cookies.set(name, value)
    }
  }
  const send = (path: string, init: RequestInit & { readonly headers?: Record<string, string> }) =>
    Effect.promise(async (): Promise<Answer> => {
      const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ")
      const response = await fetch(`${base}${path}`, {
        ...init,
        redirect: "manual",
        headers: { "x-forwarded-for": address, ...(cookie === "" ? {} : { cookie }), ...init.headers }
      })
      const setCookies = response.headers.getSetCookie()
      remember(setCookies)
      return { status: response.status, body: await response.text(), location: response.headers.get("location"), setCookies, headers: response.headers }
    })
  return {
    cookies,
    get: (path, headers = {}) => send(path, { headers }),
    head: (path) => send(path, { method: "HEAD" }),
    post: (path, fields, headers = {}) =>
      send(path, {
        method: "POST",
        body: new URLSearchParams(fields).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", origin: base, ...headers }
      }),
    postBody: (path, body, headers = {}) => send(path, { method: "POST", body, headers: { origin: base, ...headers } })
  }
}

/** The CSRF token of the (first) form of a page. */
export const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? ""

export const password = "correct horse battery staple"

/** A visitor who signed up (and so is logged in), with the account's id. */
export const signedUp = (base: string, options: { readonly email: string; readonly name?: string }) =>
  Effect.gen(function* () {
    const browser = visitor(base)
    const form = yield* browser.get("/dashboard/signup")
    const answer = yield* browser.post("/dashboard/signup", {
      csrf: csrfOf(form.body), name: options.name ?? "Ada's shop", email: options.email, password
    })
    if (answer.status !== 303) return yield* Effect.dieMessage(`sign-up answered ${answer.status}: ${answer.body.slice(0, 500)}`)
    return browser
  })

/** An operator's `credits add`. */
export const grant = (accountId: string, amount: number) =>
  Effect.flatMap(Credits, (credits) => credits.grant(AccountId.make(accountId), amount, "operator grant")).pipe(Effect.orDie)

/** The account of a dashboard user. */
export const accountOf = (email: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ accountId: string }>`SELECT account_id FROM dashboard_users WHERE email = ${email}`).pipe(
    Effect.orDie,
    Effect.map(([row]) => row?.accountId ?? "")
  )

/**
 * Checks that a page shows each text; a failure lists only the texts missing, never a diff of the
 * whole page.
 */
export const onPage = (page: string, ...texts: ReadonlyArray<string>) =>
  expect(texts.filter((text) => !page.includes(text)), "missing from the page").toEqual([])

const ResetLink = Schema.Struct({ email: Schema.String, url: Schema.String, expiresAt: Schema.String })

/** The operator's `user reset-link`: the path and query of the link it prints, and its token. */
export const resetLink = (email: string) =>
  runCommand({ _tag: "UserResetLink", email }).pipe(
    Effect.flatMap(Schema.decodeUnknown(ResetLink)),
    Effect.orDie,
    Effect.map(({ url }) => {
      const link = new URL(url)
      return { path: `${link.pathname}${link.search}`, token: link.searchParams.get("token") ?? "" }
    })
  )
