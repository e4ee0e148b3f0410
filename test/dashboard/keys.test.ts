import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { pglite } from "../support/database.ts"
import { baseUrl, csrfOf, onPage, signedUp } from "../support/dashboard.ts"
import type { Visitor } from "../support/dashboard.ts"
import { getTokens, serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)

const shownKey = (page: string) => /<textarea id="new-key-value"[^>]*>([^<]+)<\/textarea>/.exec(page)?.[1]

const deletePath = (page: string) => /href="(\/dashboard\/keys\/[0-9a-f-]{36}\/delete)"/.exec(page)?.[1] ?? ""

/** Creates a key through the page, as a person does; the key shown once. */
const createKey = (browser: Visitor, fields: Record<string, string>) =>
  Effect.gen(function* () {
    const page = yield* browser.get("/dashboard/keys")
    const answer = yield* browser.post("/dashboard/keys", { csrf: csrfOf(page.body), ...fields })
    expect(answer.status).toBe(201)
    return shownKey(answer.body) ?? ""
  })

layer(serverWith(servicesOn(pglite)).pipe(Layer.provide(quiet)), { excludeTestServices: true })("the API Keys page", (it) => {
  it.effect("a key is shown once, works on /api/tokens, is listed with its name, expiry and status, never shown again", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "keys@example.com" })
      const key = yield* createKey(browser, { name: "CMS plugin", expiry: "30" })
      const tokens = yield* getTokens(key)
      expect(tokens.status).toBe(200)
      expect((tokens.body as { token: { name: string; expiredAt: string } }).token.name).toBe("CMS plugin")
      const expiredAt = Date.parse((tokens.body as { token: { expiredAt: string } }).token.expiredAt)
      expect(Math.abs(expiredAt - (Date.now() + 30 * 864e5))).toBeLessThan(60_000)
      const list = yield* browser.get("/dashboard/keys")
      onPage(list.body, "CMS plugin")
      onPage(list.body, "Active")
      expect(list.body.includes(key)).toBe(false)
      expect(shownKey(list.body)).toBeUndefined()
    }))

  it.effect("an expiry date means through that day (UTC); a blank name reads `User` on /api/tokens", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "dates@example.com" })
      const key = yield* createKey(browser, { name: "  ", expiry: "date", "expires-on": "2031-05-17" })
      const body = (yield* getTokens(key)).body as { token: { name: string | null; expiredAt: string }; user: { name: string } }
      expect([body.token.name, body.token.expiredAt, body.user.name]).toEqual([null, "2031-05-18T00:00:00.000Z", "User"])
    }))

  it.effect("a date in the past or no date is refused with a message tied to the date field; nothing is created", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "bad-dates@example.com" })
      const page = yield* browser.get("/dashboard/keys")
      for (const date of ["2001-01-01", "", "2031-02-30"]) {
        const answer = yield* browser.post("/dashboard/keys", { csrf: csrfOf(page.body), name: "x", expiry: "date", "expires-on": date })
        expect(answer.status).toBe(400)
        onPage(answer.body, `href="#field-expires-on"`)
        onPage(answer.body, `aria-invalid="true" aria-describedby="field-expires-on-error"`)
      }
      onPage((yield* browser.get("/dashboard/keys")).body, "You have no API keys yet.")
    }))

  it.effect("CSRF: creating a key without the session's token, with another's, or from another site creates nothing", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const browser = yield* signedUp(base, { email: "csrf-create@example.com" })
      const other = yield* signedUp(base, { email: "csrf-other@example.com" })
      const page = yield* browser.get("/dashboard/keys")
      const othersToken = csrfOf((yield* other.get("/dashboard/keys")).body)
      const attempts = [
        browser.post("/dashboard/keys", { name: "forged" }),
        browser.post("/dashboard/keys", { name: "forged", csrf: othersToken }),
        browser.post("/dashboard/keys", { name: "forged", csrf: csrfOf(page.body) }, { origin: "https://evil.example" })
      ]
      for (const attempt of attempts) {
        const answer = yield* attempt
        expect(answer.status).toBe(403)
        expect(shownKey(answer.body)).toBeUndefined()
      }
      onPage((yield* browser.get("/dashboard/keys")).body, "You have no API keys yet.")
    }))

  it.effect("CSRF: deleting a key without the token leaves it working; with it, the key is revoked at once", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "csrf-delete@example.com" })
      const key = yield* createKey(browser, { name: "to delete" })
      const path = deletePath((yield* browser.get("/dashboard/keys")).body)
      const confirm = yield* browser.get(path)
      expect(confirm.status).toBe(200)
      onPage(confirm.body, "Delete the key “to delete”?")
      expect((yield* browser.post(path, {})).status).toBe(403)
      expect((yield* browser.post(path, { csrf: "not-the-token" })).status).toBe(403)
      expect((yield* getTokens(key)).status).toBe(200)
      const deleted = yield* browser.post(path, { csrf: csrfOf(confirm.body) })
      expect([deleted.status, deleted.location]).toEqual([303, "/dashboard/keys?done=key-deleted"])
      expect(yield* getTokens(key)).toEqual({ status: 401, contentType: "application/json", body: { error: "Unauthorized, invalid token" } })
      const list = yield* browser.get("/dashboard/keys?done=key-deleted")
      onPage(list.body, "The key is deleted")
      expect(list.body.includes("to delete")).toBe(false)
    }))

  it.effect("another account's key is not onPage, and stays alive", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const owner = yield* signedUp(base, { email: "owner@example.com" })
      const key = yield* createKey(owner, { name: "mine" })
      const path = deletePath((yield* owner.get("/dashboard/keys")).body)
      const intruder = yield* signedUp(base, { email: "intruder@example.com" })
      expect((yield* intruder.get(path)).status).toBe(404)
      const token = csrfOf((yield* intruder.get("/dashboard/keys")).body)
      expect((yield* intruder.post(path, { csrf: token })).status).toBe(404)
      expect((yield* getTokens(key)).status).toBe(200)
    }))

  it.effect("`<script>` in a key name and in an account name is shown as text on every page, never run", () =>
    Effect.gen(function* () {
      const script = `<script>alert("x")</script>`
      const browser = yield* signedUp(yield* baseUrl, { email: "script@example.com", name: `Shop ${script}` })
      const created = yield* browser.post("/dashboard/keys", {
        csrf: csrfOf((yield* browser.get("/dashboard/keys")).body),
        name: `Key ${script}`
      })
      const path = deletePath((yield* browser.get("/dashboard/keys")).body)
      for (const page of [created.body, (yield* browser.get("/dashboard/keys")).body, (yield* browser.get(path)).body, (yield* browser.get("/dashboard")).body]) {
        expect(page.includes("<script>alert")).toBe(false)
        onPage(page, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;")
      }
    }))
})
