/** The render functions: pure, so checked on their output, with escaping as a property. */
import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import fc from "fast-check"
import { describeResultJson } from "../../src/domain/describe.ts"
import { Account, ApiKey, Subscription } from "../../src/domain/models.ts"
import { allKeys, DayCount, RecentRequest } from "../../src/domain/usageReport.ts"
import { escapeHtml, html } from "../../src/dashboard/html.ts"
import { overviewPage, planText } from "../../src/dashboard/pages/account.ts"
import { field } from "../../src/dashboard/pages/components.ts"
import { keysPage } from "../../src/dashboard/pages/keys.ts"
import type { Viewer } from "../../src/dashboard/pages/layout.ts"
import { tryAction } from "../../src/dashboard/pages/try.ts"
import { usagePage } from "../../src/dashboard/pages/usage.ts"
import { noticeOf } from "../../src/dashboard/routes/notices.ts"
import { onPage } from "../support/dashboard.ts"

const script = `<script>alert('x')</script>`
const escapedScript = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"
const now = new Date("2026-03-01T12:00:00.000Z")
const viewer: Viewer = { accountName: `Shop ${script}`, email: "ada@example.com", csrfToken: "token-1", section: "keys" }
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`

const key = (n: number, overrides: Partial<ApiKey> = {}) =>
  new ApiKey({
    id: uuid(n), accountId: uuid(0), name: `Key ${script}`, createdAt: now, expiredAt: new Date("2027-03-01T00:00:00.000Z"),
    deletedAt: null, lastUsedAt: null, ...overrides
  })

const unescape = (text: string) =>
  text.replace(/&(lt|gt|quot|#39|amp);/g, (_, name: string) => ({ lt: "<", gt: ">", quot: "\"", "#39": "'", amp: "&" })[name] ?? "")

describe("html", () => {
  it("escapes every interpolated string, in text and in attributes; markup made by `html` passes as is", () => {
    const inner = html`<em>${"a & b"}</em>`
    expect(html`<p title="${`"><img src=x onerror=alert(1)>`}">${script}${inner}</p>`.value).toBe(
      `<p title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">${escapedScript}<em>a &amp; b</em></p>`
    )
  })

  it("renders arrays in order, numbers as they are, and nothing for booleans, null and undefined", () => {
    expect(html`<ul>${[1, 2].map((n) => html`<li>${n}</li>`)}</ul>${false}${null}${undefined}${true}`.value).toBe("<ul><li>1</li><li>2</li></ul>")
  })

  it("property: escaping leaves no character that could open a tag or end an attribute, and loses nothing", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => {
      const escaped = escapeHtml(text)
      return !/[<>"']/.test(escaped) && unescape(escaped) === text
    }))
  })
})

describe("pages", () => {
  it("the API Keys page shows `<script>` in key and account names as text, and the new key once, with its copy button", () => {
    const page = keysPage({ viewer, keys: [key(1)], now, created: { key: key(1), token: "eyJ.secret.key" } }).value
    expect(page.includes("<script>alert")).toBe(false)
    onPage(page, `Shop ${escapedScript}`, `Key ${escapedScript}`, "eyJ.secret.key", `data-copy="new-key-value"`, `<script src="/dashboard/assets/copy.js" defer></script>`)
    onPage(page, `<a href="/dashboard/keys" aria-current="page">API keys</a>`, `<input type="hidden" name="csrf" value="token-1">`)
    const later = keysPage({ viewer, keys: [key(1), key(2, { name: null, expiredAt: new Date("2026-01-01T00:00:00.000Z") })], now }).value
    expect(later.includes("eyJ.secret.key") || later.includes("copy.js")).toBe(false)
    onPage(later, "Active", "Expired", "No name", `<a href="/dashboard/keys/${uuid(2)}/delete">Delete<span class="visually-hidden"> key No name</span></a>`)
  })

  it("a field with an error is marked invalid and described by its hint and its message", () => {
    const rendered = field({ name: "email", label: "E-mail address", hint: "Hint", error: { field: "email", message: "Enter an e-mail address" } }).value
    onPage(rendered, `<label for="field-email">E-mail address</label>`, `aria-describedby="field-email-hint field-email-error"`, `aria-invalid="true"`)
    expect(field({ name: "name", label: "Name", error: { field: "email", message: "x" } }).value.includes("aria-invalid")).toBe(false)
  })

  it("the plan description is HTML by contract but shown as its text, never as markup", () => {
    expect(planText("<p>1,000 images &amp; more</p><script>x</script>")).toBe("1,000 images & more x")
    const account = new Account({ id: uuid(0), name: "Shop", email: null, registeredAt: now, credits: 1 })
    const subscription = new Subscription({ planName: "Pro", planDescription: "<img src=x onerror=alert(1)>Big", status: "past_due", renewsAt: now, endsAt: null })
    const page = overviewPage({ viewer, account, subscription: Option.some(subscription), activeKeys: 0 }).value
    expect(page.includes("<img")).toBe(false)
    onPage(page, "1 credit", "Past due", "Big")
  })

  it("the usage chart is an image described by its summary; its table lists only the days with requests", () => {
    const perDay = Array.from({ length: 7 }, (_, i) => new DayCount({ day: `2026-01-${String(23 + i).padStart(2, "0")}`, requests: i === 6 ? 4 : 0, succeeded: i === 6 ? 3 : 0 }))
    const latest = [new RecentRequest({ createdAt: now, keyId: null, keyName: null, state: "released", status: 400, errorKind: "ImageTooLarge", requestId: "req-<1>" })]
    const page = usagePage({ viewer, balance: 0, range: 7, scope: allKeys, keys: [], latestLimit: 20, ledgerLimit: 50, perDay, perKey: [], latest, ledger: [] }).value
    expect(page.match(/<tr><th scope="row">/g)).toHaveLength(1)
    expect(page.match(/<rect class="ok"/g)).toHaveLength(1)
    onPage(page, `<svg role="img" aria-labelledby="per-day-summary" viewBox="0 0 70 100"`, `<rect class="ok" x="61" y="25.00" width="8" height="75.00"></rect>`)
    onPage(page, "4 requests: 3 succeeded, 1 failed, on 1 of 7 days. Busiest day: Thu 29 Jan (4).", `<td>3</td><td>1</td>`)
    onPage(page, "Image over 10 MB", `<code class="request-id">req-&lt;1&gt;</code>`, `href="/dashboard/usage/export?range=7" download`, `<a href="/dashboard/usage?range=7" aria-current="page">7 days</a>`)
  })

  it("the Try it result keeps the API's order, and the form's address carries the CSRF token", () => {
    expect(describeResultJson([["seoTitle", "A \"title\""], ["alt", "x"]], "  ")).toBe(`{\n  "seoTitle": "A \\"title\\"",\n  "alt": "x"\n}`)
    expect(tryAction("a+b/c")).toBe("/dashboard/try?csrf=a%2Bb%2Fc")
  })

  it("only the fixed notices can be shown: nothing from the address reaches the page", () => {
    expect(noticeOf("key-deleted")).toMatch(/^The key is deleted/)
    for (const done of [undefined, "<script>", "__proto__", "toString", "constructor"]) expect(noticeOf(done)).toBeUndefined()
  })
})
