import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { Credits } from "../../src/services/Credits.ts"
import * as OfflineDescriber from "../../src/services/OfflineDescriber.ts"
import { pglite } from "../support/database.ts"
import { accountOf, baseUrl, csrfOf, grant, onPage, signedUp } from "../support/dashboard.ts"
import type { Visitor } from "../support/dashboard.ts"
import { formData, jpeg } from "../support/describe.ts"
import type { DescribeForm } from "../support/describe.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"
import { AccountId } from "../../src/domain/ids.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)

/** The form's action, with the token a page put in it. */
const actionOf = (page: string) => /action="(\/dashboard\/try\?csrf=[^"]+)"/.exec(page)?.[1]?.replaceAll("&amp;", "&") ?? ""

const tryImage = (browser: Visitor, form: DescribeForm, action?: string) =>
  Effect.gen(function* () {
    const page = yield* browser.get("/dashboard/try")
    return yield* browser.postBody(action ?? actionOf(page.body), formData(form))
  })

const funded = (email: string, credits: number) =>
  Effect.gen(function* () {
    const browser = yield* signedUp(yield* baseUrl, { email })
    const accountId = yield* accountOf(email)
    if (credits > 0) yield* grant(accountId, credits)
    const usage = Effect.flatMap(Credits, (c) => c.usage(AccountId.make(accountId)))
    return { browser, accountId, usage }
  })

layer(serverWith(servicesOn(pglite)).pipe(Layer.provide(quiet)), { excludeTestServices: true })("the Try it page", (it) => {
  it.effect("describes an image through the session, shows the JSON, spends one credit, records a keyless request", () =>
    Effect.gen(function* () {
      const { browser, usage } = yield* funded("try@example.com", 2)
      const answer = yield* tryImage(browser, { image: jpeg, schema: '{"seoTitle":"A title","2":"two"}', language: "fr" })
      expect(answer.status).toBe(200)
      onPage(answer.body, "Your balance is now <strong>1 credit</strong>", "Written in <code>fr</code> by the <code>scripted</code> describer")
      expect(answer.body).not.toContain("describer-offline")
      // In the order the API answers (an integer-like name comes first, as in any JavaScript object).
      onPage(answer.body, "{\n  &quot;2&quot;: &quot;2 value&quot;,\n  &quot;seoTitle&quot;: &quot;seoTitle value&quot;\n}")
      expect((yield* usage).map((u) => [u.keyId, u.state, u.status])).toEqual([[null, "charged", 200]])
      const report = yield* browser.get("/dashboard/usage")
      onPage(report.body, "Try it (dashboard)")
    }))

  it.effect("a refused request shows the API's answer and uses no credit", () =>
    Effect.gen(function* () {
      const { browser } = yield* funded("try-bad@example.com", 1)
      const answer = yield* tryImage(browser, { image: "not an image" })
      expect(answer.status).toBe(400)
      onPage(answer.body, "The API answers <code>400</code>", "Bad Request, Invalid image file", `your balance: <strong id="try-balance">1 credit</strong>`)
      const broke = yield* funded("try-broke@example.com", 0)
      const refused = yield* tryImage(broke.browser, { image: jpeg })
      expect(refused.status).toBe(401)
      onPage(refused.body, "Unauthorized, no credit left")
    }))

  it.effect("CSRF: without the session's token in the form's address, nothing is read or spent", () =>
    Effect.gen(function* () {
      const { browser, usage } = yield* funded("try-csrf@example.com", 1)
      for (const action of ["/dashboard/try", "/dashboard/try?csrf=forged"]) {
        expect((yield* tryImage(browser, { image: jpeg }, action)).status).toBe(403)
      }
      expect(yield* usage).toEqual([])
      onPage((yield* browser.get("/dashboard/try")).body, "1 credit")
    }))

  it.effect("the log-in is refused for a while after 5 failures for the account from one address, even with the right password", () =>
    Effect.gen(function* () {
      const { browser } = yield* funded("throttled@example.com", 0)
      const page = yield* browser.get("/dashboard")
      yield* browser.post("/dashboard/logout", { csrf: csrfOf(page.body) })
      const login = yield* browser.get("/dashboard/login")
      for (let i = 0; i < 5; i++) {
        expect((yield* browser.post("/dashboard/login", { csrf: csrfOf(login.body), email: "throttled@example.com", password: "wrong password" })).status)
          .toBe(401)
      }
      const refused = yield* browser.post("/dashboard/login", { csrf: csrfOf(login.body), email: "throttled@example.com", password: "correct horse battery staple" })
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(800)
      onPage(refused.body, "Too many failed log-ins")
      expect(browser.cookies.has("imd_session")).toBe(false)
    }))
})

layer(serverWith(servicesOn(pglite, OfflineDescriber.layer)).pipe(Layer.provide(quiet)), { excludeTestServices: true })(
  "the Try it page with the offline describer",
  (it) => {
    it.effect("warns before and after a describe that no model is configured and the text is placeholder", () =>
      Effect.gen(function* () {
        const { browser } = yield* funded("try-offline@example.com", 1)
        const warning = "No AI model is configured: images are not really described."
        onPage((yield* browser.get("/dashboard/try")).body, warning, "<code>OPENAI_API_KEY</code>")
        const answer = yield* tryImage(browser, { image: jpeg, language: "Japanese" })
        expect(answer.status).toBe(200)
        onPage(answer.body, warning, "Written in <code>en</code> by the <code>offline</code> describer")
      }))
  }
)
