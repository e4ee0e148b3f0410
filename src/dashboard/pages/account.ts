/** The Overview page (README, Dashboard: Overview and Usage): the balance now, the subscription, the account; changing the password. */
import * as Option from "effect/Option"
import { formatStatus } from "../../domain/accountStatus.ts"
import { passwordLength } from "../../domain/credentials.ts"
import type { Account, Subscription } from "../../domain/models.ts"
import { credits, date, dateTime } from "../format.ts"
import { html } from "../html.ts"
import { copyButton, csrfInput, errorSummary, field } from "./components.ts"
import type { Problem } from "./components.ts"
import { page, paths } from "./layout.ts"
import type { Viewer } from "./layout.ts"

/** The named character references a plan's text is likely to hold; any other is shown as written. */
const namedCharacters: Readonly<Record<string, string>> = {
  amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: " ", euro: "€", pound: "£", yen: "¥", cent: "¢", copy: "©",
  reg: "®", trade: "™", hellip: "…", mdash: "—", ndash: "–", lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”",
  middot: "·", bull: "•", times: "×", deg: "°", laquo: "«", raquo: "»"
}

/** A numeric character reference's character; U+FFFD for no character, as browsers show it. */
const numbered = (codePoint: number) =>
  codePoint > 0 && codePoint <= 0x10ffff && !(codePoint >= 0xd800 && codePoint <= 0xdfff) ? String.fromCodePoint(codePoint) : "\uFFFD"

/**
 * The plan description is HTML by contract (spec §2.3) but written by whoever set the
 * subscription: shown as its text, never trusted as markup. As a browser reads it: a tag is `<`
 * then a letter, `/` or `!` (a comment), so `< 10 MB` stays text; references are decoded, the
 * numbered ones and the usual named ones.
 */
export const planText = (description: string) =>
  description
    .replace(/<!--[\s\S]*?(?:-->|$)|<\/?[A-Za-z][^>]*>/g, " ")
    .replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z]+));/g, (written, decimal?: string, hex?: string, name?: string) =>
      decimal !== undefined
        ? numbered(Number(decimal))
        : hex !== undefined
        ? numbered(parseInt(hex, 16))
        : Object.hasOwn(namedCharacters, name ?? "") ? namedCharacters[name ?? ""] ?? written : written)
    .replace(/\s+/g, " ")
    .trim()

export interface OverviewView {
  readonly viewer: Viewer
  readonly account: Account
  readonly subscription: Option.Option<Subscription>
  readonly activeKeys: number
  readonly notice?: string | undefined
  /** `CREDITS_HELP`: how to get credits, shown while the balance is 0. */
  readonly creditsHelp: Option.Option<string>
  /** Where the API is reached (`PUBLIC_URL`), for the first request to make. */
  readonly publicUrl: string
}

/** A URL is shown as a link to itself; anything else as a sentence. */
const helpText = (help: string) =>
  /^https?:\/\//i.test(help) && URL.canParse(help) ? html`<a href="${help}">${help}</a>` : help

/**
 * With credits, where to start; with none, how to get some, rather than a first request that
 * would be refused (`401 Unauthorized, no credit left`, spec §7.2).
 */
const nextStep = (view: OverviewView) =>
  view.account.credits > 0
    ? html`<p>To start, <a href="${paths.try}">try an image</a> here, or <a href="${paths.keys}">create an API key</a> and send one from your server:</p>
      <pre><code>curl -F image=@photo.jpg -H "Authorization: Bearer $API_KEY" ${view.publicUrl}/api/describe</code></pre>`
    : html`<p class="warning">You have no credits yet: requests with your keys are refused until you have some.
      ${Option.match(view.creditsHelp, {
        onNone: () => "Ask the operator of this service for credits.",
        onSome: (help) => html`To get credits: ${helpText(help)}`
      })}</p>`

const subscriptionSection = (subscription: Option.Option<Subscription>) =>
  Option.match(subscription, {
    onNone: () => html`<p>No subscription. Credits never expire, whether or not you subscribe.</p>`,
    onSome: (s) =>
      html`<dl class="facts">
        <div><dt>Plan</dt><dd>${s.planName}${planText(s.planDescription) && html`<br><span class="muted">${planText(s.planDescription)}</span>`}</dd></div>
        <div><dt>Status</dt><dd>${formatStatus(s.status)}</dd></div>
        <div><dt>Renews</dt><dd>${s.renewsAt ? date(s.renewsAt) : "Not set"}</dd></div>
        ${s.endsAt && html`<div><dt>Ends</dt><dd>${date(s.endsAt)}</dd></div>`}
      </dl>`
  })

export const overviewPage = (view: OverviewView) =>
  page({
    title: "Overview",
    viewer: view.viewer,
    notice: view.notice,
    script: true,
    body: html`<section aria-labelledby="balance-title">
      <h2 id="balance-title">Balance</h2>
      <p class="balance"><strong>${credits(view.account.credits)}</strong></p>
      <p>Each image described uses one credit; a failed request uses none. Credits never expire.</p>
      ${nextStep(view)}
      <p><a href="${paths.usage}">See your usage and credit history</a></p>
    </section>
    <section aria-labelledby="subscription-title">
      <h2 id="subscription-title">Subscription</h2>
      ${subscriptionSection(view.subscription)}
    </section>
    <section aria-labelledby="account-title">
      <h2 id="account-title">Account</h2>
      <dl class="facts">
        <div><dt>Name</dt><dd>${view.account.name}</dd></div>
        <div><dt><label for="account-id">Account id</label></dt><dd class="copy-field">
          <input type="text" id="account-id" class="key-value" value="${view.account.id}" readonly spellcheck="false" size="36">
          ${copyButton("account-id", "Copy account id", "Account id")}</dd></div>
        <div><dt>E-mail address</dt><dd>${view.viewer.email}</dd></div>
        <div><dt>Password</dt><dd><a href="${paths.password}">Change password</a></dd></div>
        <div><dt>Created</dt><dd>${dateTime(view.account.registeredAt)}</dd></div>
        <div><dt>Active API keys</dt><dd>${view.activeKeys} <a href="${paths.keys}">Manage API keys</a></dd></div>
      </dl>
    </section>`
  })

export interface ChangePasswordView {
  readonly viewer: Viewer
  readonly problem?: Problem | undefined
}

export const changePasswordPage = (view: ChangePasswordView) =>
  page({
    title: "Change password",
    viewer: view.viewer,
    body: html`${errorSummary(view.problem)}
    <p>Changing your password logs you out everywhere else; this browser stays logged in.</p>
    <form method="post" action="${paths.password}" novalidate>
      ${csrfInput(view.viewer.csrfToken)}
      ${field({ name: "current-password", label: "Current password", type: "password", autocomplete: "current-password", required: true, error: view.problem })}
      ${field({ name: "password", label: "New password", type: "password", autocomplete: "new-password", hint: `At least ${passwordLength.min} characters.`, required: true, error: view.problem })}
      <button type="submit">Change password</button>
    </form>
    <p><a href="${paths.overview}">Back to the overview</a></p>`
  })
