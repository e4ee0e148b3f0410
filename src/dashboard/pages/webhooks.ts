/**
 * The Webhooks page (README, "Webhooks"): the account's signing secret to copy, a form to replace
 * it, and the latest delivery attempts, so a customer can see why their endpoint got nothing.
 */
import type { DeliveryAttempt } from "../../services/AccountWebhooks.ts"
import { dateTime } from "../format.ts"
import { html } from "../html.ts"
import { copyButton, csrfInput, table } from "./components.ts"
import { page, paths } from "./layout.ts"
import type { Viewer } from "./layout.ts"

export interface WebhooksView {
  readonly viewer: Viewer
  readonly secret: string
  readonly attempts: ReadonlyArray<DeliveryAttempt>
  readonly notice?: string | undefined
}

const outcome = (attempt: DeliveryAttempt) =>
  attempt.status !== null
    ? html`<span class="status status-${attempt.status >= 200 && attempt.status <= 299 ? "active" : "expired"}">${attempt.status}</span>`
    : html`<span class="status status-expired">Failed</span> ${attempt.error ?? ""}`

const attemptTable = (attempts: ReadonlyArray<DeliveryAttempt>) =>
  attempts.length === 0
    ? html`<p>No deliveries yet. Give a <code>webhookUrl</code> with a batch to get an event when it completes.</p>`
    : table({
      id: "attempts",
      caption: "Latest delivery attempts",
      cards: true,
      head: ["Time", "Event", "URL", "Attempt", "Answer", "Duration"],
      rows: attempts.map((attempt) => [
        dateTime(attempt.attemptedAt),
        html`<code>${attempt.type}</code> <span class="muted">${attempt.eventId}</span>`,
        attempt.url,
        `${attempt.attempt}`,
        outcome(attempt),
        `${attempt.durationMs} ms`
      ])
    })

export const webhooksPage = (view: WebhooksView) =>
  page({
    title: "Webhooks",
    viewer: view.viewer,
    notice: view.notice,
    script: true,
    body: html`<p>Events such as a completed batch are sent to the <code>webhookUrl</code> you give, signed as the
      <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> specification says: check the
      <code>webhook-signature</code> header with this secret before trusting an event
      (<a href="${paths.apiReference}">API reference</a>, “Webhooks”).</p>
    <section aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <p class="copy-field"><label for="webhook-secret" class="visually-hidden">Signing secret</label>
        <input type="text" id="webhook-secret" class="key-value" value="${view.secret}" readonly spellcheck="false" size="50"></p>
      ${copyButton("webhook-secret", "Copy secret", "Signing secret")}
      <p>Keep it on your server, like an API key.</p>
      <p><a href="${paths.webhooksRotate}">Replace the secret</a> (you are asked to confirm first)</p>
    </section>
    <section aria-labelledby="attempts-title">
      <h2 id="attempts-title">Latest deliveries</h2>
      ${attemptTable(view.attempts)}
    </section>`
  })

/** Replacing the secret breaks every receiver until it is updated: asked once more, as deleting a key is. */
export const rotateSecretPage = (view: { readonly viewer: Viewer }) =>
  page({
    title: "Replace the webhook secret?",
    viewer: view.viewer,
    body: html`<p class="warning"><strong>From the moment you replace it, every delivery is signed with the new secret only:</strong>
      your endpoint refuses them until you give it the new one. This cannot be undone.</p>
    <form method="post" action="${paths.webhooksRotate}" class="actions">
      ${csrfInput(view.viewer.csrfToken)}
      <button type="submit" class="button-danger">Replace the secret</button>
      <a href="${paths.webhooks}">Cancel, keep the secret</a>
    </form>`
  })
