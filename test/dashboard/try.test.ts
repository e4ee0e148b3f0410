import { execFileSync } from "node:child_process"
import { expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Logger, LogLevel } from "effect"
import { CreditWait } from "../../src/services/creditReservation.ts"
import { Credits } from "../../src/services/Credits.ts"
import * as OfflineDescriber from "../../src/services/OfflineDescriber.ts"
import { pglite } from "../support/database.ts"
import { accountOf, baseUrl, csrfOf, grant, onPage, signedUp } from "../support/dashboard.ts"
import type { Visitor } from "../support/dashboard.ts"
import { formData, jpeg } from "../support/describe.ts"
import type { DescribeFields } from "../support/describe.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"
import { AccountId } from "../../src/domain/ids.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)

/** The form's action, with the token a page put in it. */
const actionOf = (page: string) => /action="(\/dashboard\/try\?csrf=[^"]+)"/.exec(page)?.[1]?.replaceAll("&amp;", "&") ?? ""

const tryImage = (browser: Visitor, form: DescribeFields, action?: string) =>
  Effect.gen(function* () {
    const page = yield* browser.get("/dashboard/try")
    return yield* browser.postBody(action ?? actionOf(page.body), formData(form))
  })

/** A page's text, as a browser shows it. */
const unescaped = (text: string) =>
  text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", "\"").replaceAll("&#39;", "'").replaceAll("&amp;", "&")

const curlOf = (page: string) => unescaped(/<pre id="try-curl"[^>]*><code>([^<]*)<\/code><\/pre>/.exec(page)?.[1] ?? "")

/** Text fields with every character HTML and the shell treat specially. */
const typed = {
  language: "fr",
  keywords: `beach, "sunset"`,
  // A form sends a line break as CRLF (multipart/form-data), so the service sees and keeps "\r\n".
  context: "Tom's <towel> & co\r\nsecond line",
  schema: `{"seoTitle":"A title"}`
}

/** Each field is back in the form, escaped, as typed. */
const refilled = (page: string) =>
  onPage(
    page,
    `id="field-language" name="language" aria-describedby="field-language-hint" type="text" value="fr"`,
    `id="field-keywords" name="keywords" aria-describedby="field-keywords-hint" type="text" value="beach, &quot;sunset&quot;"`,
    `rows="4">Tom&#39;s &lt;towel&gt; &amp; co\r\nsecond line</textarea>`,
    `rows="4">{&quot;seoTitle&quot;:&quot;A title&quot;}</textarea>`,
    "Browsers never fill in a file for you"
  )

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
      // In the schema's order, as the API answers, an integer-like name too.
      onPage(answer.body, "{\n  &quot;seoTitle&quot;: &quot;seoTitle value&quot;,\n  &quot;2&quot;: &quot;2 value&quot;\n}")
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
      // The field at fault is marked, its message tied to it, and the summary links to it; the others are not.
      onPage(answer.body, `<a href="#field-image">Go to the image field</a>`, `aria-describedby="field-image-hint field-image-error" aria-invalid="true"`)
      expect(answer.body.match(/aria-invalid/g)).toHaveLength(1)
      const longLanguage = yield* tryImage(browser, { image: jpeg, language: "x".repeat(80) })
      onPage(longLanguage.body, `<a href="#field-language">Go to the language field</a>`, `id="field-language" name="language" aria-describedby="field-language-hint field-language-error" aria-invalid="true"`)
      const broke = yield* funded("try-broke@example.com", 0)
      const refused = yield* tryImage(broke.browser, { image: jpeg, ...typed })
      expect(refused.status).toBe(401)
      onPage(refused.body, "Unauthorized, no credit left")
      expect(refused.body).not.toContain("aria-invalid")
      // Refused before the form is read (§4.1 check 2), and still filled in again.
      refilled(refused.body)
    }))

  it.effect("after a success and after an error the form is filled in again, with status, request id, describer and credits left", () =>
    Effect.gen(function* () {
      const { browser } = yield* funded("try-keep@example.com", 2)
      const success = yield* tryImage(browser, { image: jpeg, ...typed })
      expect(success.status).toBe(200)
      refilled(success.body)
      const requestId = success.headers.get("x-request-id") ?? "none"
      onPage(success.body, `<dt>Status</dt><dd id="try-status"><code>200</code></dd>`,
        `<dt>Request id</dt><dd id="try-request-id"><code>${requestId}</code></dd>`,
        `<dt>Describer</dt><dd><code>scripted</code></dd>`, `<dt>Credits left</dt><dd id="try-credits-left">1 credit</dd>`)
      const failure = yield* tryImage(browser, { image: "not an image", ...typed })
      expect(failure.status).toBe(400)
      refilled(failure.body)
      onPage(failure.body, `<dd id="try-status"><code>400</code></dd>`,
        `<dd id="try-request-id"><code>${failure.headers.get("x-request-id") ?? "none"}</code></dd>`,
        `<dd id="try-credits-left">1 credit</dd>`)
      const blank = yield* browser.get("/dashboard/try")
      expect(blank.body).not.toContain("Browsers never fill in a file for you")
      expect(blank.body).toContain(`id="field-language" name="language" aria-describedby="field-language-hint" type="text">`)
    }))

  it.effect("copy as curl: the request just made, each value in single quotes, a quote inside written '\\''", () =>
    Effect.gen(function* () {
      const { browser } = yield* funded("try-curl@example.com", 1)
      const answer = yield* tryImage(browser, { image: jpeg, ...typed })
      const command = curlOf(answer.body)
      expect(command).toBe(
        `curl 'https://images.example.com/api/describe' \\
  -H "Authorization: Bearer $API_KEY" \\
  -F image=@FILE \\
  --form-string 'language=fr' \\
  --form-string 'keywords=beach, "sunset"' \\
  --form-string 'context=Tom'\\''s <towel> & co\r
second line' \\
  --form-string 'schema={"seoTitle":"A title"}'`
      )
      onPage(answer.body, `data-copy="try-curl"`)
      // A shell reads back exactly the values typed (curl replaced by a function printing its arguments).
      const words = execFileSync("sh", ["-c", `curl() { printf '%s\\0' "$@"; }; API_KEY=imd_k; ${command}`]).toString().split("\0")
      expect(words.slice(0, -1)).toEqual([
        "https://images.example.com/api/describe", "-H", "Authorization: Bearer imd_k", "-F", "image=@FILE",
        "--form-string", "language=fr", "--form-string", `keywords=${typed.keywords}`,
        "--form-string", `context=${typed.context}`, "--form-string", `schema=${typed.schema}`
      ])
      const first = yield* browser.get("/dashboard/try")
      expect(curlOf(first.body)).toBe(`curl 'https://images.example.com/api/describe' \\\n  -H "Authorization: Bearer $API_KEY" \\\n  -F image=@FILE`)
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

// A credit wait of 300 ms (10 s in service), past which credits held are answered.
const shortCreditWait = servicesOn(pglite).pipe(Layer.provide(Layer.succeed(CreditWait, Duration.millis(300))))
layer(serverWith(shortCreditWait).pipe(Layer.provide(quiet)), { excludeTestServices: true })("the Try it page while credits are held", (it) => {
  it.effect("every credit held past the wait: the API's 500, no credit used, the form filled in again as for no credit left", () =>
    Effect.gen(function* () {
      const { browser, accountId, usage } = yield* funded("try-held@example.com", 1)
      // What the account's requests in flight would hold.
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE accounts SET reserved = credits WHERE id = ${accountId}`.pipe(Effect.orDie)
      const answer = yield* tryImage(browser, { image: jpeg, ...typed })
      yield* sql`UPDATE accounts SET reserved = 0 WHERE id = ${accountId}`.pipe(Effect.orDie)
      expect(answer.status).toBe(500)
      onPage(answer.body, "The API answers <code>500</code>", "Internal Server Error")
      refilled(answer.body)
      expect(yield* usage).toEqual([])
    }))
})
