/**
 * The API Keys page (issue 5 §2, spec §5): create a key (optional name, an expiry from presets or
 * a date), see it once with a copy button, list keys, and delete one after a confirmation.
 */
import { customExpiry, defaultExpiry, expiryPresets, keyNameMaxLength } from "../../domain/keyForm.ts"
import type { ApiKey } from "../../domain/models.ts"
import { dateTime } from "../format.ts"
import { html } from "../html.ts"
import { csrfInput, errorSummary, field, table } from "./components.ts"
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
  /** A key just created: its only showing. */
  readonly created?: { readonly key: ApiKey; readonly token: string } | undefined
  readonly form?: { readonly name?: string | undefined; readonly expiry?: string | undefined; readonly expiresOn?: string | undefined }
  readonly problem?: Problem | undefined
  readonly notice?: string | undefined
}

const createdKey = (created: NonNullable<KeysView["created"]>) =>
  html`<section class="new-key" aria-labelledby="new-key-title">
    <h2 id="new-key-title" tabindex="-1" autofocus>Your new key${created.key.name && html` “${created.key.name}”`}</h2>
    <p><strong>Copy it now: it is shown only this once.</strong> Keep it on your server, for example in an environment variable.</p>
    <label for="new-key-value">New API key</label>
    <textarea id="new-key-value" class="key-value" readonly rows="4" spellcheck="false" autocomplete="off">${created.token}</textarea>
    <p class="copy"><button type="button" data-copy="new-key-value" data-status="copy-status" hidden>Copy key</button>
    <span id="copy-status" role="status"></span></p>
  </section>`

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
      head: ["Name", "Created", "Expires", "Last used", "Status", html`<span class="visually-hidden">Actions</span>`],
      rows: view.keys.map((key) => [
        keyName(key),
        dateTime(key.createdAt),
        dateTime(key.expiredAt),
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
