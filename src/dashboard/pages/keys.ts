/**
 * The API Keys page (spec §5; README, Dashboard: API keys): create a key (optional name, an expiry from presets or
 * a date), see it once after the redirect with a copy button and first requests to paste, list
 * keys by name, end and id, and delete one after a confirmation.
 */
import { customExpiry, defaultExpiry, expiryPresets, keyNameMaxLength } from "../../domain/keyForm.ts"
import type { ApiKey } from "../../domain/models.ts"
import { keyPrefix } from "../../services/ApiKeys.ts"
import { dateTime, expiry } from "../format.ts"
import { html } from "../html.ts"
import type { Snippet } from "../snippets.ts"
import { copyButton, csrfInput, errorSummary, field, table } from "./components.ts"
import type { Problem } from "./components.ts"
import { page, paths } from "./layout.ts"
import type { Viewer } from "./layout.ts"

export const keyPath = (key: ApiKey) => `${paths.keys}/${key.id}/delete`

const keyName = (key: ApiKey) => key.name ?? "No name"

export const keyStatus = (key: ApiKey, now: Date) => (key.expiredAt.getTime() > now.getTime() ? "Active" : "Expired")

export interface KeysView {
  readonly viewer: Viewer
  readonly keys: ReadonlyArray<ApiKey>
  readonly now: Date
  /** A key just created: its only showing, with first requests that use it. */
  readonly created?: { readonly key: ApiKey; readonly token: string; readonly snippets: ReadonlyArray<Snippet> } | undefined
  readonly form?: { readonly name?: string | undefined; readonly expiry?: string | undefined; readonly expiresOn?: string | undefined }
  readonly problem?: Problem | undefined
  readonly notice?: string | undefined
}

const createdKey = (created: NonNullable<KeysView["created"]>) =>
  html`<section class="new-key" aria-labelledby="new-key-title">
    <h2 id="new-key-title" tabindex="-1" autofocus>Your new key${created.key.name && html` “${created.key.name}”`}</h2>
    <p><strong>Copy it now: it is shown only this once.</strong> Keep it on your server, for example in an environment variable.
    It works until ${expiry(created.key.expiredAt)}.</p>
    <label for="new-key-value">New API key</label>
    <textarea id="new-key-value" class="key-value" readonly rows="4" spellcheck="false" autocomplete="off">${created.token}</textarea>
    ${copyButton("new-key-value", "Copy key", "Key")}
    <h3>Your first request</h3>
    <p>Describe <code>photo.jpg</code> with this key (one credit on success):</p>
    ${created.snippets.map((snippet) => html`<h4>${snippet.label}</h4>
    <pre id="snippet-${snippet.id}"><code>${snippet.code}</code></pre>
    ${copyButton(`snippet-${snippet.id}`, `Copy the ${snippet.label} example`, `The ${snippet.label} example`)}`)}
  </section>`

/** What tells a key apart without showing it: its prefix and last four characters, and its id. */
const keyEnd = (key: ApiKey) =>
  html`${key.lastFour === null ? html`<span class="muted">End not recorded</span>` : html`<code>${keyPrefix}…${key.lastFour}</code>`}
    <br><span class="muted">id <code class="key-id">${key.id}</code></span>`

const expiryChoices = (view: KeysView) => {
  const chosen = view.form?.expiry ?? defaultExpiry
  const invalid = view.problem?.field === "expires-on"
  return html`<fieldset aria-describedby="expiry-hint">
    <legend>Expires</legend>
    <p class="hint" id="expiry-hint">After this, requests with the key are refused with 401.</p>
    ${expiryPresets.map((preset) =>
      html`<div class="choice"><input type="radio" id="expiry-${preset.value}" name="expiry" value="${preset.value}"${chosen === preset.value ? html` checked` : ""}>
        <label for="expiry-${preset.value}">In ${preset.label}</label></div>`)}
    <div class="choice"><input type="radio" id="expiry-date" name="expiry" value="${customExpiry}"${chosen === customExpiry ? html` checked` : ""}>
      <label for="expiry-date">On a date</label></div>
    <div class="field conditional${invalid ? " field-invalid" : ""}">
      <label for="field-expires-on">Date (the key works through that day, UTC)</label>
      ${invalid && html`<p class="field-error" id="field-expires-on-error"><span class="visually-hidden">Error:</span> ${view.problem?.message}</p>`}
      <input type="date" id="field-expires-on" name="expires-on" value="${view.form?.expiresOn ?? ""}" min="${view.now.toISOString().slice(0, 10)}"${
        invalid ? html` aria-invalid="true" aria-describedby="field-expires-on-error"` : ""
      }>
    </div>
  </fieldset>`
}

const keyTable = (view: KeysView) =>
  view.keys.length === 0
    ? html`<p>You have no API keys yet.</p>`
    : table({
      id: "keys",
      caption: "Your API keys",
      cards: true,
      head: ["Name", "Key", "Created", "Expires", "Last used", "Status", html`<span class="visually-hidden">Actions</span>`],
      rows: view.keys.map((key) => [
        keyName(key),
        keyEnd(key),
        dateTime(key.createdAt),
        expiry(key.expiredAt),
        key.lastUsedAt ? dateTime(key.lastUsedAt) : "Never",
        html`<span class="status status-${keyStatus(key, view.now).toLowerCase()}">${keyStatus(key, view.now)}</span>`,
        html`<a href="${keyPath(key)}">Delete<span class="visually-hidden"> key ${keyName(key)}</span></a>`
      ])
    })

export const keysPage = (view: KeysView) =>
  page({
    title: "API keys",
    viewer: view.viewer,
    notice: view.notice,
    script: view.created !== undefined,
    body: html`${view.created && createdKey(view.created)}
    <p>A key lets a server call the API for this account. Anyone who has a key can spend your credits: keep keys on servers, never in web pages or apps.</p>
    <section aria-labelledby="create-title">
      <h2 id="create-title">Create a key</h2>
      ${errorSummary(view.problem)}
      <form method="post" action="${paths.keys}" novalidate>
        ${csrfInput(view.viewer.csrfToken)}
        ${field({ name: "name", label: "Name (optional)", hint: "To tell your keys apart, for example the site or server that uses it.", value: view.form?.name, error: view.problem, attributes: html` maxlength="${keyNameMaxLength}"` })}
        ${expiryChoices(view)}
        <button type="submit">Create key</button>
      </form>
    </section>
    <section aria-labelledby="list-title">
      <h2 id="list-title">Your keys</h2>
      ${keyTable(view)}
    </section>`
  })

export const deleteKeyPage = (view: { readonly viewer: Viewer; readonly key: ApiKey; readonly now: Date }) =>
  page({
    title: `Delete the key “${keyName(view.key)}”?`,
    viewer: view.viewer,
    body: html`<dl class="facts">
      <div><dt>Key</dt><dd>${keyEnd(view.key)}</dd></div>
      <div><dt>Created</dt><dd>${dateTime(view.key.createdAt)}</dd></div>
      <div><dt>Last used</dt><dd>${view.key.lastUsedAt ? dateTime(view.key.lastUsedAt) : "Never"}</dd></div>
      <div><dt>Status</dt><dd>${keyStatus(view.key, view.now)}</dd></div>
    </dl>
    <p class="warning"><strong>From the moment you delete it, every request with this key is refused.</strong> This cannot be undone.</p>
    <form method="post" action="${keyPath(view.key)}" class="actions">
      ${csrfInput(view.viewer.csrfToken)}
      <button type="submit" class="button-danger">Delete key</button>
      <a href="${paths.keys}">Cancel, keep the key</a>
    </form>`
  })
