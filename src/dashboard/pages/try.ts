/**
 * The Try it page (README, Dashboard: Try it): the describe request of the API, made through the session, so the
 * key never reaches the browser. Shows the JSON the API returns, or the error it answers.
 */
import { describeResultJson } from "../../domain/describe.ts"
import { limits } from "../../domain/limits.ts"
import type { Described } from "../../services/describeImage.ts"
import type { DescriberKind } from "../../services/Describer.ts"
import { credits } from "../format.ts"
import { html } from "../html.ts"
import { tryCurl } from "../tryCurl.ts"
import type { TryFields } from "../tryCurl.ts"
import { copyButton, field, fieldId } from "./components.ts"
import type { Problem } from "./components.ts"
import { page, paths } from "./layout.ts"
import type { Viewer } from "./layout.ts"

export interface TryView {
  readonly viewer: Viewer
  readonly balance: number
  /** The describer this service runs. */
  readonly describer: DescriberKind
  /** The response: its entries, in its order, and its language and describer. */
  readonly result?: Described | undefined
  /** What the API would have answered instead, and the form's field at fault when it is one field's. */
  readonly failure?: { readonly status: number; readonly message: string; readonly field?: string | undefined } | undefined
  /** The text fields last sent, to fill the form again. */
  readonly fields?: TryFields | undefined
  /** Where the API is reached, for the curl command. */
  readonly origin: string
  /** This page's own answer: its status and `X-Request-Id` (README, Operations). */
  readonly outcome: { readonly status: number; readonly requestId: string | null }
}

/** Multipart bodies are read by the describe pipeline, which sees only its own fields: the CSRF token rides in the URL. */
export const tryAction = (csrfToken: string) => `${paths.try}?csrf=${encodeURIComponent(csrfToken)}`

/** What a support request needs: the status, the request id, the describer and the balance after. */
const facts = (view: TryView) =>
  html`<dl class="try-facts">
      <dt>Status</dt><dd id="try-status"><code>${view.outcome.status}</code></dd>
      ${view.outcome.requestId && html`<dt>Request id</dt><dd id="try-request-id"><code>${view.outcome.requestId}</code></dd>`}
      <dt>Describer</dt><dd><code>${view.result?.describer ?? view.describer}</code></dd>
      <dt>Credits left</dt><dd id="try-credits-left">${credits(view.balance)}</dd>
    </dl>`

const outcome = (view: TryView) => {
  if (view.failure) {
    return html`<section class="error-summary" role="alert" aria-labelledby="outcome-title">
      <h2 id="outcome-title" tabindex="-1" autofocus>The image was not described</h2>
      <p>The API answers <code>${view.failure.status}</code> with <code>${JSON.stringify({ error: view.failure.message })}</code>. No credit was used.</p>
      ${view.failure.field && html`<p><a href="#${fieldId(view.failure.field)}">Go to the ${view.failure.field} field</a></p>`}
      ${facts(view)}
    </section>`
  }
  return view.result && html`<section class="result" aria-labelledby="outcome-title">
      <h2 id="outcome-title" tabindex="-1" autofocus>Result</h2>
      <p role="status">Described, using one credit. Your balance is now <strong>${credits(view.balance)}</strong>.</p>
      <p>Written in <code>${view.result.language}</code> by the <code>${view.result.describer}</code> describer (the API sends these as the <code>Content-Language</code> and <code>X-Describer</code> headers).</p>
      <pre tabindex="0" aria-label="Result as JSON"><code>${describeResultJson(view.result.entries, "  ")}</code></pre>
      ${facts(view)}
    </section>`
}

/**
 * Placeholder text must never pass for a model's description (README, "The offline describer"), so
 * the page says which describer answers before anything is spent.
 */
const describerNote = (describer: DescriberKind) =>
  describer === "offline"
    ? html`<div class="warning" id="describer-offline">
      <p><strong>No AI model is configured: images are not really described.</strong> The offline describer answers instead. It cannot see what an image shows: it writes placeholder text from the image's shape, colours and brightness, and leaves empty the fields it cannot answer.</p>
      <p>The operator enables a model by setting <code>OPENAI_API_KEY</code> or <code>OPENAI_BASE_URL</code>.</p>
    </div>`
    : html`<p id="describer">Images are described by the AI model this service is configured with (<code>${describer}</code>).</p>`

/** The same request from a terminal, with the fields filled in as last sent. */
const curlCommand = (view: TryView) =>
  html`<section aria-labelledby="curl-title">
      <h2 id="curl-title">The same request with curl</h2>
      <p>Replace <code>FILE</code> with the path of your image and set <code>API_KEY</code> to one of your keys.</p>
      <pre id="try-curl" tabindex="0" aria-label="curl command"><code>${tryCurl(view.origin, view.fields ?? {})}</code></pre>
      ${copyButton("try-curl", "Copy as curl", "The curl command")}
    </section>`

export const tryPage = (view: TryView) => {
  // The field at fault is marked and its message tied to it (`aria-invalid`, `aria-describedby`).
  const error: Problem | undefined = view.failure?.field === undefined ? undefined : { message: view.failure.message, field: view.failure.field }
  return page({
    title: "Try it",
    script: true,
    viewer: view.viewer,
    body: html`${outcome(view)}
    ${describerNote(view.describer)}
    <p>Describe an image as <code>POST /api/describe</code> does. A successful request uses one credit (your balance: <strong id="try-balance">${credits(view.balance)}</strong>); a failed one uses none.</p>
    <form method="post" action="${tryAction(view.viewer.csrfToken)}" enctype="multipart/form-data" novalidate>
      ${field({ name: "image", error, label: "Image", type: "file", required: true, hint: `JPEG, PNG, WebP or GIF, at most ${limits.imageBytes / 1024 / 1024} MB.${view.fields ? " Browsers never fill in a file for you: choose the image again before you send the form again." : ""}`, attributes: html` accept="image/jpeg,image/png,image/webp,image/gif" data-preview="try-preview"` })}
      <img id="try-preview" alt="Preview of the chosen file" hidden>
      ${field({ name: "language", error, value: view.fields?.language, label: "Language (optional)", hint: "A code such as en or pt-BR, or a name such as French. English when empty." })}
      ${field({ name: "keywords", value: view.fields?.keywords, label: "Keywords (optional)", hint: "Comma-separated, for example: beach, sunset." })}
      ${field({ name: "context", value: view.fields?.context, label: "Context (optional)", hint: "Where the image is used, for example: product page of a beach towel.", multiline: true })}
      ${field({ name: "schema", error, value: view.fields?.schema, label: "Schema (optional)", hint: "A JSON object of field names and what to write for each, for example {\"seoTitle\": \"A title for search engines\"}. Title, alternative text and caption when empty.", multiline: true })}
      <button type="submit">Describe image</button>
    </form>
    ${curlCommand(view)}`
  })
}
