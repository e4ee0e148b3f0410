import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { pglite } from "../support/database.ts"
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Accounts } from "../../src/services/Accounts.ts"
import { accountOf, baseUrl, csrfOf, grant, onPage, password, signedUp, visitor } from "../support/dashboard.ts"
import { jpeg } from "../support/describe.ts"
import type { Visitor } from "../support/dashboard.ts"
import { getTokens, serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"
import { AccountId } from "../../src/domain/ids.ts"
import { realNode } from "../support/realNode.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)

const shownKey = (page: string) => /<textarea id="new-key-value"[^>]*>([^<]+)<\/textarea>/.exec(page)?.[1]

const deletePath = (page: string) => /href="(\/dashboard\/keys\/[0-9a-f-]{36}\/delete)"/.exec(page)?.[1] ?? ""

/** Creates a key through the page, as a person does: the post redirects, the page after it shows the key once. */
const createKeyPage = (browser: Visitor, fields: Record<string, string>) =>
  Effect.gen(function* () {
    const page = yield* browser.get("/dashboard/keys")
    const answer = yield* browser.post("/dashboard/keys", { csrf: csrfOf(page.body), ...fields })
    expect([answer.status, answer.location, shownKey(answer.body)]).toEqual([303, "/dashboard/keys", undefined])
    return yield* browser.get("/dashboard/keys")
  })

const createKey = (browser: Visitor, fields: Record<string, string>) =>
  Effect.map(createKeyPage(browser, fields), (page) => shownKey(page.body) ?? "")

const unescapeHtml = (text: string) =>
  text.replace(/&(lt|gt|quot|#39|amp);/g, (_, name: string) => ({ lt: "<", gt: ">", quot: "\"", "#39": "'", amp: "&" })[name] ?? "")

const keyRows = (page: string) => page.match(/\/dashboard\/keys\/[0-9a-f-]{36}\/delete/g)?.length ?? 0

layer(serverWith(servicesOn(pglite)).pipe(Layer.provide(quiet)), { excludeTestServices: true })("the API Keys page", (it) => {
  it.effect("creating redirects: the key starts with imd_, is shown once with its examples; a reload makes no second key and shows it no more", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "prg@example.com" })
      const shown = yield* createKeyPage(browser, { name: "Reloaded", expiry: "90" })
      const key = shownKey(shown.body) ?? ""
      expect(key).toMatch(/^imd_eyJ/)
      expect(shown.status).toBe(200)
      onPage(shown.body, `-H &quot;Authorization: Bearer ${key}&quot;`, `Authorization: &quot;Bearer ${key}&quot;`,
        `{&quot;Authorization&quot;: &quot;Bearer ${key}&quot;}`, "https://images.example.com/api/describe", `<code>imd_…${key.slice(-4)}</code>`)
      expect((yield* getTokens(key)).status).toBe(200)
      const reload = yield* browser.get("/dashboard/keys")
      expect([shownKey(reload.body), reload.body.includes(key), keyRows(reload.body)]).toEqual([undefined, false, 1])
      onPage(reload.body, `<code>imd_…${key.slice(-4)}</code>`)
    }))

  it.effect("a HEAD of the page after the creation (a link checker) leaves the new key to the GET that shows it", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "head@example.com" })
      const page = yield* browser.get("/dashboard/keys")
      expect((yield* browser.post("/dashboard/keys", { csrf: csrfOf(page.body), name: "Checked", expiry: "90" })).status).toBe(303)
      expect((yield* browser.head("/dashboard/keys")).status).toBe(200)
      expect(shownKey((yield* browser.get("/dashboard/keys")).body)).toMatch(/^imd_eyJ/)
    }))

  it.effect("the examples shown with a new key, pasted and run as they are, each describe photo.jpg with it (one credit each)", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const browser = yield* signedUp(base, { email: "paste@example.com" })
      const accountId = yield* accountOf("paste@example.com")
      yield* grant(accountId, 5)
      const page = (yield* createKeyPage(browser, { name: "pasted" })).body
      const folder = mkdtempSync(join(tmpdir(), "imd-snippets-"))
      writeFileSync(join(folder, "photo.jpg"), jpeg)
      // Node.js itself: under the test runner, `node` on the PATH is Bun.
      const runs = [["curl", "sh", "curl.sh"], ["node", realNode ?? "node", "describe.mjs"], ["python", "python3", "describe.py"]] as const
      for (const [id, program, file] of runs) {
        const code = unescapeHtml(new RegExp(`<pre id="snippet-${id}"><code>([^<]*)</code></pre>`).exec(page)?.[1] ?? "")
          .replaceAll("https://images.example.com", base)
        writeFileSync(join(folder, file), code)
        const output = yield* Effect.promise(() =>
          new Promise<string>((done) => execFile(program, [file], { cwd: folder, timeout: 20_000 }, (error, stdout) => done(error ? `failed: ${error.message}` : stdout))))
        expect([id, output]).toEqual([id, expect.stringContaining("alt_text")])
      }
      rmSync(folder, { recursive: true })
      expect((yield* Effect.flatMap(Accounts, (accounts) => accounts.find(AccountId.make(accountId))).pipe(Effect.orDie)).credits).toBe(2)
    }))

  it.effect("the new key waits only for its own session: another log-in of the same user never sees it", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const browser = yield* signedUp(base, { email: "flash@example.com" })
      const page = yield* browser.get("/dashboard/keys")
      expect((yield* browser.post("/dashboard/keys", { csrf: csrfOf(page.body), name: "one" })).status).toBe(303)
      const other = visitor(base)
      const login = yield* other.get("/dashboard/login")
      expect((yield* other.post("/dashboard/login", { csrf: csrfOf(login.body), email: "flash@example.com", password })).status).toBe(303)
      expect(shownKey((yield* other.get("/dashboard/keys")).body)).toBeUndefined()
      expect(shownKey((yield* browser.get("/dashboard/keys")).body)).toMatch(/^imd_/)
    }))

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
      const page = yield* createKeyPage(browser, { name: "  ", expiry: "date", "expires-on": "2031-05-17" })
      const key = shownKey(page.body) ?? ""
      onPage(page.body, "It works until <time datetime=\"2031-05-18T00:00:00.000Z\">17 May 2031 (end of day UTC)</time>")
      expect(page.body.includes("18 May 2031")).toBe(false)
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
        onPage(answer.body, date === "2001-01-01" ? `Choose ${new Date().toISOString().slice(0, 10)} (today, UTC) or a later date` : "Enter the date as YYYY-MM-DD")
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
      const created = yield* createKeyPage(browser, { name: `Key ${script}` })
      const path = deletePath((yield* browser.get("/dashboard/keys")).body)
      for (const page of [created.body, (yield* browser.get("/dashboard/keys")).body, (yield* browser.get(path)).body, (yield* browser.get("/dashboard")).body]) {
        expect(page.includes("<script>alert")).toBe(false)
        onPage(page, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;")
      }
    }))
})
