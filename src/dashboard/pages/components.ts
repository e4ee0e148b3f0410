/** Pieces the dashboard's pages share: form fields with their errors, tables that scroll on a phone. */
import { html } from "../html.ts"
import type { Html, Interpolation } from "../html.ts"

/** What went wrong with a submitted form, as a page shows it. */
export interface Problem {
  readonly message: string
  /** The field to fix, when it is one field's fault. */
  readonly field?: string | undefined
}

export interface FieldOptions {
  readonly name: string
  readonly label: string
  readonly type?: "text" | "email" | "password" | "date" | "file"
  readonly value?: string | undefined
  readonly hint?: string | undefined
  readonly autocomplete?: string | undefined
  readonly required?: boolean
  /** Shown with this field when it names it. */
  readonly error?: Problem | undefined
  /** Extra attributes, already safe (e.g. `accept`, `maxlength`). */
  readonly attributes?: Html | undefined
  readonly multiline?: boolean
}

/** Ids follow names, so an error summary can link to the field it is about. */
export const fieldId = (name: string) => `field-${name}`

/**
 * A labelled input; its hint and error are tied to it with `aria-describedby`, and an error
 * marks it `aria-invalid`, so a screen reader announces both with the field.
 */
export const field = (options: FieldOptions): Html => {
  const id = fieldId(options.name)
  const error = options.error?.field === options.name ? options.error : undefined
  const described = [options.hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ")
  const common = html`id="${id}" name="${options.name}"${options.required ? html` required` : ""}${
    options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ""
  }${described ? html` aria-describedby="${described}"` : ""}${error ? html` aria-invalid="true"` : ""}${options.attributes}`
  const control = options.multiline
    ? html`<textarea ${common} rows="4">${options.value ?? ""}</textarea>`
    : html`<input ${common} type="${options.type ?? "text"}"${options.value === undefined ? "" : html` value="${options.value}"`}>`
  return html`<div class="field${error ? " field-invalid" : ""}">
    <label for="${id}">${options.label}</label>
    ${options.hint && html`<p class="hint" id="${id}-hint">${options.hint}</p>`}
    ${error && html`<p class="field-error" id="${id}-error"><span class="visually-hidden">Error:</span> ${error.message}</p>`}
    ${control}
  </div>`
}

/**
 * At the top of a form that was refused: says what went wrong and links to the field to fix.
 * It takes the focus when the page loads, so the keyboard and the screen reader start there.
 */
export const errorSummary = (problem: Problem | undefined) =>
  problem &&
  html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title">
    <h2 id="error-summary-title" tabindex="-1" autofocus>There is a problem</h2>
    <p>${problem.field ? html`<a href="#${fieldId(problem.field)}">${problem.message}</a>` : problem.message}</p>
  </div>`

/** Every form posts the token of its page (CSRF). */
export const csrfInput = (token: string) => html`<input type="hidden" name="csrf" value="${token}">`

/** A cell's column name, shown before it when a table is laid out as cards; none for a hidden heading. */
const cellLabel = (head: Interpolation) => (typeof head === "string" ? html` data-label="${head}"` : "")

/**
 * A table with a caption, in a region that scrolls sideways on a narrow screen; the region is
 * focusable so that keyboard users can scroll it too. With `cards`, below 600 px each row is a
 * card instead, each cell after its column's name (the style sheet), so nothing is off-screen.
 */
export const table = (options: {
  readonly id: string
  /** Names the table (and its region) for screen readers; the heading above it says as much on screen. */
  readonly caption: Interpolation
  readonly head: ReadonlyArray<Interpolation>
  readonly rows: ReadonlyArray<ReadonlyArray<Interpolation>>
  readonly cards?: boolean
}) => {
  const label = (i: number) => (options.cards ? cellLabel(options.head[i]) : "")
  return html`<div class="table-scroll${options.cards ? " cards" : ""}" role="region" aria-labelledby="${options.id}-caption" tabindex="0">
    <table id="${options.id}">
      <caption id="${options.id}-caption" class="visually-hidden">${options.caption}</caption>
      <thead><tr>${options.head.map((cell) => html`<th scope="col">${cell}</th>`)}</tr></thead>
      <tbody>${options.rows.map(([first, ...rest]) =>
        html`<tr><th scope="row"${label(0)}>${first}</th>${rest.map((cell, i) => html`<td${label(i + 1)}>${cell}</td>`)}</tr>`)}</tbody>
    </table>
  </div>`
}

/**
 * A button that copies the text of the element `target` (assets.ts), hidden until the script
 * finds a clipboard; without it the text stays there to select. `what` names it in the message.
 */
export const copyButton = (target: string, label: string, what: string) =>
  html`<p class="copy"><button type="button" class="button-secondary" data-copy="${target}" data-status="${target}-status" data-what="${what}" hidden>${label}</button>
    <span id="${target}-status" role="status"></span></p>`
