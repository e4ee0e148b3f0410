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
import { snippets } from "../../src/dashboard/snippets.ts"
import { onPage } from "../support/dashboard.ts"
import { AccountId, KeyId } from "../../src/domain/ids.ts"

const script = `<script>alert('x')</script>`
const escapedScript = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"
const now = new Date("2026-03-01T12:00:00.000Z")
const viewer: Viewer = { accountName: `Shop ${script}`, email: "ada@example.com", csrfToken: "token-1", section: "keys" }
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`

const key = (n: number, overrides: Partial<ApiKey> = {}) =>
  new ApiKey({
    id: KeyId.make(uuid(n)), accountId: AccountId.make(uuid(0)), name: `Key ${script}`, createdAt: now, expiredAt: new Date("2027-03-01T00:00:00.000Z"),
    deletedAt: null, lastUsedAt: null, lastFour: "wxyz", ...overrides
  })

const overviewOf = (account: Account) =>
  ({ viewer, account, subscription: Option.none(), activeKeys: 0, creditsHelp: Option.none(), publicUrl: "https://images.example.com" })

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
    const page = keysPage({ viewer, keys: [key(1)], now, created: { key: key(1), token: "eyJ.secret.key", snippets: snippets("eyJ.secret.key", "https://x.example") } }).value
    expect(page.includes("<script>alert")).toBe(false)
    onPage(page, `Shop ${escapedScript}`, `Key ${escapedScript}`, "eyJ.secret.key", `data-copy="new-key-value"`, `<script src="/dashboard/assets/copy.js" defer></script>`)
    onPage(page, `<a href="/dashboard/keys" aria-current="page">API keys</a>`, `<input type="hidden" name="csrf" value="token-1">`)
    const later = keysPage({ viewer, keys: [key(1), key(2, { name: null, expiredAt: new Date("2026-01-01T00:00:00.000Z") })], now }).value
    expect(later.includes("eyJ.secret.key") || later.includes("copy.js")).toBe(false)
    onPage(later, "Active", "Expired", "No name", `<a href="/dashboard/keys/${uuid(2)}/delete">Delete<span class="visually-hidden"> key No name</span></a>`)
  })

  it("the keys list shows each key's prefix, last four characters and id; a date's expiry as the day chosen, end of day UTC", () => {
    const page = keysPage({ viewer, keys: [key(1), key(2, { lastFour: null, expiredAt: new Date("2027-01-16T00:00:00.000Z") })], now }).value
    onPage(page, "<code>imd_…wxyz</code>", `<code class="key-id">${uuid(1)}</code>`, `<code class="key-id">${uuid(2)}</code>`, "End not recorded",
      `<time datetime="2027-01-16T00:00:00.000Z">15 Jan 2027 (end of day UTC)</time>`)
    expect(page.includes("16 Jan 2027")).toBe(false)
    onPage(keysPage({ viewer, keys: [key(3, { expiredAt: new Date("2027-01-16T09:30:00.000Z") })], now }).value, "16 Jan 2027, 09:30 UTC")
  })

  it("a new key comes with curl, Node and Python examples that carry it and the public URL, each with a copy button", () => {
    const token = "imd_eyJ.abc-_def"
    const page = keysPage({ viewer, keys: [key(1)], now, created: { key: key(1), token, snippets: snippets(token, "https://api.example") } }).value
    onPage(page, `curl &quot;https://api.example/api/describe&quot;`, `-H &quot;Authorization: Bearer ${token}&quot;`, "-F image=@photo.jpg",
      `await fetch(&quot;https://api.example/api/describe&quot;`, `headers: { Authorization: &quot;Bearer ${token}&quot; }`, "form.append(&quot;image&quot;",
      "requests.post(", `headers={&quot;Authorization&quot;: &quot;Bearer ${token}&quot;}`, `data-copy="snippet-curl"`, `data-copy="snippet-node"`, `data-copy="snippet-python"`)
  })

  it("a field with an error is marked invalid and described by its hint and its message", () => {
    const rendered = field({ name: "email", label: "E-mail address", hint: "Hint", error: { field: "email", message: "Enter an e-mail address" } }).value
    onPage(rendered, `<label for="field-email">E-mail address</label>`, `aria-describedby="field-email-hint field-email-error"`, `aria-invalid="true"`)
    expect(field({ name: "name", label: "Name", error: { field: "email", message: "x" } }).value.includes("aria-invalid")).toBe(false)
  })

  it("the plan description is HTML by contract but shown as its text, never as markup", () => {
    expect(planText("<p>1,000 images &amp; more</p><script>x</script>")).toBe("1,000 images & more x")
    // As a browser shows it: `<` before a space is text, references decoded, a comment dropped.
    expect(planText("<p>1&nbsp;000 images/month for 9&euro; (&#8364;9, &#x20AC;9), images < 10 MB & > 100 px</p><!-- draft --><ul><li>Priority</li></ul>"))
      .toBe("1 000 images/month for 9€ (€9, €9), images < 10 MB & > 100 px Priority")
    expect(planText("&unknown; &#0; &constructor;")).toBe("&unknown; \uFFFD &constructor;")
    const account = new Account({ id: AccountId.make(uuid(0)), name: "Shop", email: null, registeredAt: now, credits: 1 })
    const subscription = new Subscription({ planName: "Pro", planDescription: "<img src=x onerror=alert(1)>Big", status: "past_due", renewsAt: now, endsAt: null })
    const page = overviewPage({ ...overviewOf(account), subscription: Option.some(subscription) }).value
    expect(page.includes("<img")).toBe(false)
    onPage(page, "1 credit", "Past due", "Big")
  })

  it("the overview shows the account id to copy; with credits, a first request; with none, how to get credits, never a request", () => {
    const rich = overviewPage(overviewOf(new Account({ id: AccountId.make(uuid(7)), name: "Shop", email: null, registeredAt: now, credits: 5 }))).value
    onPage(rich, `<input type="text" id="account-id" class="key-value" value="${uuid(7)}" readonly`, `data-copy="account-id"`, "copy.js",
      `-H "Authorization: Bearer $API_KEY" https://images.example.com/api/describe`, `href="/dashboard/try"`)
    const broke = new Account({ id: AccountId.make(uuid(8)), name: "Shop", email: null, registeredAt: now, credits: 0 })
    const asked = overviewPage(overviewOf(broke)).value
    onPage(asked, "You have no credits yet", "Ask the operator of this service for credits.", `value="${uuid(8)}"`)
    expect(asked.includes("/api/describe") || asked.includes("try an image")).toBe(false)
    const sentence = overviewPage({ ...overviewOf(broke), creditsHelp: Option.some(`Write to <b>billing</b>`) }).value
    onPage(sentence, "To get credits: Write to &lt;b&gt;billing&lt;/b&gt;")
    const link = overviewPage({ ...overviewOf(broke), creditsHelp: Option.some(`https://shop.example/credits?a=1&b="x"`) }).value
    onPage(link, `To get credits: <a href="https://shop.example/credits?a=1&amp;b=&quot;x&quot;">https://shop.example/credits?a=1&amp;b=&quot;x&quot;</a>`)
    const notLink = overviewPage({ ...overviewOf(broke), creditsHelp: Option.some("javascript:alert(1)") }).value
    expect(notLink.includes(`href="javascript`)).toBe(false)
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
