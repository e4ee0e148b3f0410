import { createHash } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { AccountId } from "../../src/domain/ids.ts"
import { Accounts } from "../../src/services/Accounts.ts"
import { pglite } from "../support/database.ts"
import { accountOf, baseUrl, csrfOf, onPage, password, signedUp, visitor } from "../support/dashboard.ts"
import { jpeg, postDescribe } from "../support/describe.ts"
import { getTokens, seen, serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)

const error = (status: number, message: string) => ({ status, contentType: "application/json", body: { error: message } })

layer(serverWith(servicesOn(pglite)).pipe(Layer.provide(quiet)), { excludeTestServices: true })("dashboard sessions", (it) => {
  it.effect("sign-up logs in with an HttpOnly, SameSite=Lax cookie for /dashboard, not Secure over plain HTTP", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const browser = visitor(base)
      const form = yield* browser.get("/dashboard/signup")
      expect(form.status).toBe(200)
      const answer = yield* browser.post("/dashboard/signup", { csrf: csrfOf(form.body), name: "Ada", email: "Ada@Example.com ", password })
      expect([answer.status, answer.location]).toEqual([303, "/dashboard?done=welcome"])
      const cookie = answer.setCookies.find((line) => line.startsWith("imd_session=")) ?? ""
      expect(cookie).toMatch(/; Path=\/dashboard/)
      expect(cookie).toMatch(/; HttpOnly/)
      expect(cookie).toMatch(/; SameSite=Lax/)
      expect(cookie).not.toMatch(/Secure/)
      // The mark of a browser that logged in (README, Dashboard), as private, and outliving the session.
      const known = answer.setCookies.find((line) => line.startsWith("imd_browser=")) ?? ""
      expect(known).toMatch(/; Path=\/dashboard; .*HttpOnly/)
      expect(known).toMatch(/; SameSite=Lax/)
      expect(new Date(/Expires=([^;]+)/.exec(known)?.[1] ?? "").getTime()).toBeGreaterThan(Date.now() + 170 * 86_400_000)
      // Its payload, readable by anyone holding the cookie, is no plain hash of the address: a guess cannot be checked.
      const payload = JSON.parse(Buffer.from(/^imd_browser=[^.]+\.([^.]+)\./.exec(known)?.[1] ?? "", "base64url").toString()) as { browserOf: string }
      const guesses = ["hex", "base64url"].map((encoding) => createHash("sha256").update("known-browser:ada@example.com").digest(encoding as "hex"))
      expect(payload.browserOf).toMatch(/^[\w-]{43}$/)
      expect(guesses).not.toContain(payload.browserOf)
      const overview = yield* browser.get("/dashboard?done=welcome")
      expect(overview.status).toBe(200)
      onPage(overview.body, "Your account is ready")
      // Stored normalised: the address logs in whatever its case.
      expect(yield* accountOf("ada@example.com")).toMatch(/^[0-9a-f-]{36}$/)
    }))

  it.effect("a sign-up with the address of an account an operator made says to ask for an invitation (log-in cannot work), and makes no account", () =>
    Effect.gen(function* () {
      yield* Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "Shop", email: "made@example.com" }))
      const browser = visitor(yield* baseUrl)
      const form = yield* browser.get("/dashboard/signup")
      const answer = yield* browser.post("/dashboard/signup", { csrf: csrfOf(form.body), name: "Mallory", email: "Made@example.com", password })
      expect(answer.status).toBe(409)
      onPage(answer.body, "An account with this e-mail address exists already, made by the service&#39;s operator: ask them for an invitation to it")
      expect((yield* Effect.flatMap(Accounts, (accounts) => accounts.list({ email: "made@example.com" }))).map((a) => a.name)).toEqual(["Shop"])
    }))

  it.effect("behind an HTTPS proxy the cookies are Secure", () =>
    Effect.gen(function* () {
      const browser = visitor(yield* baseUrl)
      const form = yield* browser.get("/dashboard/signup", { "x-forwarded-proto": "https" })
      expect(form.setCookies.find((line) => line.startsWith("imd_csrf="))).toMatch(/; Secure/)
      const answer = yield* browser.post(
        "/dashboard/signup",
        { csrf: csrfOf(form.body), name: "Grace", email: "grace@example.com", password },
        { "x-forwarded-proto": "https" }
      )
      expect(answer.setCookies.find((line) => line.startsWith("imd_session="))).toMatch(/; Secure/)
      expect(answer.setCookies.find((line) => line.startsWith("imd_browser="))).toMatch(/; Secure/)
      // A chain of proxies: the first value is what the client used.
      const chained = yield* visitor(yield* baseUrl).get("/dashboard/signup", { "x-forwarded-proto": "https, http" })
      expect(chained.setCookies.find((line) => line.startsWith("imd_csrf="))).toMatch(/; Secure/)
    }))

  it.effect("pages behind the log-in send a visitor without a session to the log-in page", () =>
    Effect.gen(function* () {
      const browser = visitor(yield* baseUrl)
      for (const path of ["/dashboard", "/dashboard/keys", "/dashboard/usage", "/dashboard/try"]) {
        const answer = yield* browser.get(path)
        expect([path, answer.status, answer.location]).toEqual([path, 303, "/dashboard/login"])
      }
      browser.cookies.set("imd_session", "forged.value.here")
      expect((yield* browser.get("/dashboard")).location).toBe("/dashboard/login")
    }))

  it.effect("session fixation: a log-in never keeps the session id the browser came with, and ends it", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      // The attacker's own valid session, planted in the victim's browser.
      const attacker = yield* signedUp(base, { email: "mallory@example.com" })
      yield* signedUp(base, { email: "victim@example.com" }).pipe(Effect.flatMap((b) => b.post("/dashboard/logout", {})))
      const planted = attacker.cookies.get("imd_session") ?? ""
      const victim = visitor(base)
      victim.cookies.set("imd_session", planted)
      const form = yield* victim.get("/dashboard/login")
      expect(form.status).toBe(303) // the planted session is alive: the log-in page sends it on
      victim.cookies.delete("imd_session")
      const login = yield* victim.get("/dashboard/login")
      victim.cookies.set("imd_session", planted)
      const answer = yield* victim.post("/dashboard/login", { csrf: csrfOf(login.body), email: "victim@example.com", password })
      expect([answer.status, answer.location]).toEqual([303, "/dashboard"])
      const fresh = victim.cookies.get("imd_session")
      expect(fresh).toBeDefined()
      expect(fresh).not.toBe(planted)
      onPage((yield* victim.get("/dashboard")).body, "victim@example.com")
      // The planted id is dead: the attacker holds nothing.
      expect((yield* attacker.get("/dashboard")).location).toBe("/dashboard/login")
    }))

  it.effect("a session cookie sent as an API key: 400 `Malformed token: missing userId` on /api/tokens, 401 on /api/describe", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "bearer@example.com" })
      const session = browser.cookies.get("imd_session") ?? ""
      expect(session.split(".")).toHaveLength(3)
      expect(yield* getTokens(session)).toEqual(error(400, "Malformed token: missing userId"))
      expect(yield* postDescribe({ image: jpeg }, session)).toEqual(error(401, "Unauthorized, invalid token"))
    }))

  it.effect("an API key sent as the session cookie opens nothing", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const owner = yield* signedUp(base, { email: "keyholder@example.com" })
      const keys = yield* owner.get("/dashboard/keys")
      yield* owner.post("/dashboard/keys", { csrf: csrfOf(keys.body), name: "server" })
      const created = yield* owner.get("/dashboard/keys")
      const key = /<textarea id="new-key-value"[^>]*>([^<]+)<\/textarea>/.exec(created.body)?.[1] ?? ""
      expect((yield* getTokens(key)).status).toBe(200)
      // As issued (`imd_...`) or as the bare signed token that it carries.
      for (const cookie of [key, key.replace(/^imd_/, "")]) {
        const stranger = visitor(base)
        stranger.cookies.set("imd_session", cookie)
        expect((yield* stranger.get("/dashboard")).location).toBe("/dashboard/login")
      }
    }))

  it.effect("log-out ends the session at once: the old cookie, replayed, opens nothing", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const browser = yield* signedUp(base, { email: "leaving@example.com" })
      const cookie = browser.cookies.get("imd_session") ?? ""
      const overview = yield* browser.get("/dashboard")
      const answer = yield* browser.post("/dashboard/logout", { csrf: csrfOf(overview.body) })
      expect([answer.status, answer.location]).toEqual([303, "/dashboard/login?done=logged-out"])
      expect(answer.setCookies.find((line) => line.startsWith("imd_session="))).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/)
      onPage((yield* browser.get("/dashboard/login?done=logged-out")).body, "You have logged out.")
      const replay = visitor(base)
      replay.cookies.set("imd_session", cookie)
      expect((yield* replay.get("/dashboard")).location).toBe("/dashboard/login")
    }))

  it.effect("log-out without the session's token changes nothing (CSRF)", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "staying@example.com" })
      expect((yield* browser.post("/dashboard/logout", {})).status).toBe(403)
      expect((yield* browser.get("/dashboard")).status).toBe(200)
    }))

  it.effect("a wrong password, or an unknown address, reads the same and logs in no one", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      yield* signedUp(base, { email: "known@example.com" })
      for (const email of ["known@example.com", "unknown@example.com"]) {
        const browser = visitor(base)
        const form = yield* browser.get("/dashboard/login")
        const answer = yield* browser.post("/dashboard/login", { csrf: csrfOf(form.body), email, password: "not the password" })
        expect(answer.status).toBe(401)
        onPage(answer.body, "The e-mail address or the password is not right")
        expect(browser.cookies.has("imd_session")).toBe(false)
      }
    }))

  it.effect("the user of a deleted account is told it was closed, with the right password only, and gets no session", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      yield* signedUp(base, { email: "closed@example.com" })
      const accountId = yield* accountOf("closed@example.com")
      yield* Effect.flatMap(Accounts, (accounts) => accounts.remove(AccountId.make(accountId)))
      for (const [given, status, message] of [
        ["not the password", 401, "The e-mail address or the password is not right"],
        [password, 403, "This account has been closed. The operator of this service can tell you more."]
      ] as const) {
        const browser = visitor(base)
        const form = yield* browser.get("/dashboard/login")
        const answer = yield* browser.post("/dashboard/login", { csrf: csrfOf(form.body), email: "closed@example.com", password: given })
        expect(answer.status).toBe(status)
        onPage(answer.body, message)
        expect(browser.cookies.has("imd_session")).toBe(false)
      }
    }))

  it.effect("log-in and sign-up posts need the token of their form (login CSRF)", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      yield* signedUp(base, { email: "csrf-login@example.com" })
      const browser = visitor(base)
      yield* browser.get("/dashboard/login")
      const noToken = yield* browser.post("/dashboard/login", { email: "csrf-login@example.com", password })
      expect(noToken.status).toBe(403)
      onPage(noToken.body, "This form has expired")
      expect(browser.cookies.has("imd_session")).toBe(false)
      // The right token, posted from another site's page.
      const form = yield* browser.get("/dashboard/login")
      const crossSite = yield* browser.post("/dashboard/login", { csrf: csrfOf(form.body), email: "csrf-login@example.com", password }, {
        origin: "https://evil.example"
      })
      expect(crossSite.status).toBe(403)
      const signup = yield* browser.post("/dashboard/signup", { name: "X", email: "x@example.com", password })
      expect(signup.status).toBe(403)
      expect(yield* accountOf("x@example.com")).toBe("")
    }))

  it.effect("HTML pages carry a strict Content-Security-Policy and are never cached", () =>
    Effect.gen(function* () {
      const answer = yield* visitor(yield* baseUrl).get("/dashboard/login")
      expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(answer.headers.get("content-security-policy")).toContain("script-src 'self'")
      expect(answer.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
      expect(answer.headers.get("cache-control")).toBe("no-store")
      expect(answer.headers.get("referrer-policy")).toBe("same-origin")
      const missing = yield* visitor(yield* baseUrl).get("/dashboard/nothing-here")
      expect([missing.status, missing.body.includes("Page not found")]).toEqual([404, true])
      // The API's own 404 stays JSON.
      const client = yield* HttpClient.HttpClient
      expect(yield* client.execute(HttpClientRequest.get("/api/nothing")).pipe(Effect.flatMap(seen))).toEqual(error(404, "Not found"))
    }))
})
