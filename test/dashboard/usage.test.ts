/**
 * The Usage page over HTTP (README, Dashboard): periods and the key filter from the address (a bad
 * value is the default, never an error), error kinds in words, request ids, and the CSV export.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { ApiKeys } from "../../src/services/ApiKeys.ts"
import { pglite } from "../support/database.ts"
import { accountOf, baseUrl, grant, onPage, signedUp } from "../support/dashboard.ts"
import { formData, jpeg } from "../support/describe.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"
import { dayMs, usageRow } from "../support/usage.ts"
import { AccountId } from "../../src/domain/ids.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)
/** The summary above the chart: what a screen reader reads for it. */
const summary = (page: string) => /<p id="per-day-summary">([^<]*)<\/p>/.exec(page)?.[1]

/** An account with a key named to break CSV, and requests 40 days ago (Try it), 10 days ago and today. */
const history = (email: string) =>
  Effect.gen(function* () {
    const browser = yield* signedUp(yield* baseUrl, { email })
    const accountId = yield* accountOf(email)
    const name = `=HYPERLINK("http://x", "y")`
    const { key, token } = yield* Effect.flatMap(ApiKeys, (keys) => keys.create(AccountId.make(accountId), { name, expiredAt: new Date(Date.now() + 30 * dayMs) }))
    yield* usageRow({ accountId, keyId: null, daysAgo: 40, status: 500, errorKind: "GenerationFailed", requestId: null })
    yield* usageRow({ accountId, keyId: key.id, daysAgo: 10, status: 400, errorKind: "ImageTooLarge", requestId: "req-ten" })
    yield* usageRow({ accountId, keyId: key.id, daysAgo: 0, status: 200, errorKind: null, requestId: "req-today" })
    return { browser, accountId, key, token }
  })

layer(serverWith(servicesOn(pglite)).pipe(Layer.provide(quiet)), { excludeTestServices: true })("the Usage page", (it) => {
  it.effect("7, 30 and 90 days; anything else in the address is the 30-day default", () =>
    Effect.gen(function* () {
      const { browser } = yield* history("ranges@example.com")
      const seen = yield* Effect.forEach(["?range=7", "?range=30", "?range=90", "", "?range=14", "?range=%3Cscript%3E", "?range=7&range=90"], (query) =>
        Effect.map(browser.get(`/dashboard/usage${query}`), (answer) => [query, answer.status, summary(answer.body)?.split(":")[0]]))
      expect(seen).toEqual([
        ["?range=7", 200, "1 request"],
        ["?range=30", 200, "2 requests"],
        ["?range=90", 200, "3 requests"],
        ["", 200, "2 requests"],
        ["?range=14", 200, "2 requests"],
        ["?range=%3Cscript%3E", 200, "2 requests"],
        ["?range=7&range=90", 200, "1 request"]
      ])
      const ninety = (yield* browser.get("/dashboard/usage?range=90")).body
      onPage(ninety, `<a href="/dashboard/usage?range=90" aria-current="page">90 days</a>`, `viewBox="0 0 900 100"`)
      // Days without requests are only in the chart: three rows, not ninety.
      expect(/<table id="per-day">[\s\S]*?<\/table>/.exec(ninety)?.[0].match(/<tr><th scope="row">/g)).toHaveLength(3)
      // Error kinds in words, and the request ids that were recorded.
      onPage(ninety, "Image over 10 MB", "Model failed, retry", `<code class="request-id">req-ten</code>`, "Not recorded")
      expect(ninety).not.toContain(">ImageTooLarge<")
    }))

  it.effect("a key filter: one key, or Try it; another account's key or nonsense means every key", () =>
    Effect.gen(function* () {
      const { browser, key } = yield* history("filter@example.com")
      const other = yield* history("other@example.com")
      const seen = yield* Effect.forEach([`&key=${key.id}`, "&key=dashboard", `&key=${other.key.id}`, "&key=%3Cb%3E", "&key="], (query) =>
        Effect.map(browser.get(`/dashboard/usage?range=90${query}`), (answer) => [query, answer.status, summary(answer.body)?.split(":")[0]]))
      expect(seen).toEqual([
        [`&key=${key.id}`, 200, "2 requests"],
        ["&key=dashboard", 200, "1 request"],
        [`&key=${other.key.id}`, 200, "3 requests"],
        ["&key=%3Cb%3E", 200, "3 requests"],
        ["&key=", 200, "3 requests"]
      ])
      const filtered = (yield* browser.get(`/dashboard/usage?range=90&key=${key.id}`)).body
      // The filter is kept by the period links and the export link.
      onPage(filtered, `<option value="${key.id}" selected>`, `href="/dashboard/usage?range=7&amp;key=${key.id}"`,
        `href="/dashboard/usage/export?range=90&amp;key=${key.id}" download`)
    }))

  it.effect("the CSV export: the period's requests in scope, escaped, with spreadsheet formulas kept as text", () =>
    Effect.gen(function* () {
      const { browser, key } = yield* history("csv@example.com")
      const answer = yield* browser.get("/dashboard/usage/export?range=90")
      expect(answer.status).toBe(200)
      expect(answer.headers.get("content-type")).toBe("text/csv; charset=utf-8")
      expect(answer.headers.get("content-disposition")).toMatch(/^attachment; filename="usage-\d{4}-\d\d-\d\d-90d\.csv"$/)
      const times = answer.body.split("\r\n").slice(1, -1).map((line) => line.split(",")[0])
      expect(answer.body).toBe([
        "time,key_id,key_name,status,error_kind,error,credits_used,request_id",
        `${times[0]},${key.id},"'=HYPERLINK(""http://x"", ""y"")",200,,,1,req-today`,
        `${times[1]},${key.id},"'=HYPERLINK(""http://x"", ""y"")",400,ImageTooLarge,Image over 10 MB,0,req-ten`,
        `${times[2]},,Try it (dashboard),500,GenerationFailed,"Model failed, retry",0,`,
        ""
      ].join("\r\n"))
      expect(times.every((time) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(time ?? ""))).toBe(true)
      const tryOnly = yield* browser.get("/dashboard/usage/export?range=bad&key=dashboard")
      expect(tryOnly.body).toBe("time,key_id,key_name,status,error_kind,error,credits_used,request_id\r\n")
      // Logged out: no export, the log-in page instead.
      const stranger = yield* Effect.map(baseUrl, (base) => fetch(`${base}/dashboard/usage/export`, { redirect: "manual" }))
      expect((yield* Effect.promise(() => stranger)).status).toBe(303)
    }))

  it.effect("a request's X-Request-Id is recorded with its usage, shown and exported", () =>
    Effect.gen(function* () {
      const { browser, accountId, token } = yield* history("request-id@example.com")
      yield* grant(accountId, 1)
      const base = yield* baseUrl
      const answer = yield* Effect.promise(() =>
        fetch(`${base}/api/describe`, { method: "POST", body: formData({ image: jpeg }), headers: { authorization: `Bearer ${token}`, "x-request-id": "client-req-42" } }))
      expect(answer.status).toBe(200)
      onPage((yield* browser.get("/dashboard/usage")).body, `<code class="request-id">client-req-42</code>`)
      expect((yield* browser.get("/dashboard/usage/export?range=7")).body.split("\r\n")[1]).toMatch(/,200,,,1,client-req-42$/)
    }))
})
