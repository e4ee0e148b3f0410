/**
 * The API reference page, rendered from the OpenAPI document: each operation's Markdown, form
 * fields, request examples, and every response with its example bodies (one per failure). It
 * carries the dashboard's security headers, so its style sheet is the dashboard's, no inline style.
 */
import { escapeHtml as escape } from "../dashboard/html.ts"
import { inlineMarkdown, markdown } from "./markdown.ts"
import type { OpenApiDocument } from "./openapi.ts"

interface Example {
  readonly summary: string
  readonly value: unknown
}

interface Operation {
  readonly operationId: string
  readonly summary: string
  readonly description?: string
  readonly "x-codeSamples"?: ReadonlyArray<{ readonly label: string; readonly source: string }>
  readonly requestBody?: {
    readonly content: Record<string, {
      readonly schema: { readonly properties: Record<string, { readonly description?: string }>; readonly required?: ReadonlyArray<string> }
      readonly examples?: Record<string, Example>
    }>
  }
  readonly responses: Record<string, {
    readonly description: string
    readonly headers?: Record<string, { readonly description: string }>
    readonly content: Record<string, { readonly examples?: Record<string, Example> }>
  }>
}

const json = (value: unknown, pretty: boolean) => escape(JSON.stringify(value, null, pretty ? 2 : undefined))

// A region that scrolls on a phone must be reachable by keyboard (axe-core's scrollable-region-focusable).
const table = (caption: string, head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) =>
  `<div class="table-scroll" tabindex="0"><table><caption>${caption}</caption><thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join("")}</tr></thead><tbody>${
    rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join("")}</tr>`).join("")
  }</tbody></table></div>`

const request = (op: Operation) => {
  const samples = (op["x-codeSamples"] ?? []).map((sample) => `<h4>${escape(sample.label)}</h4><pre><code>${escape(sample.source)}</code></pre>`)
  const [type, body] = Object.entries(op.requestBody?.content ?? {})[0] ?? []
  if (body === undefined) return `<h3>Request</h3><p>No body: the key in the header is all.</p>${samples.join("")}`
  const kind = type === "application/json" ? "JSON" : "Form"
  const fields = table(`${kind} fields`, ["Field", "Required", "Rule"], Object.entries(body.schema.properties).map(([name, field]) => [
    `<code>${escape(name)}</code>`, body.schema.required?.includes(name) ? "yes" : "no", inlineMarkdown(field.description ?? "")
  ]))
  const examples = Object.values(body.examples ?? {}).map((example) => `<h4>${kind}: ${escape(example.summary)}</h4><pre><code>${json(example.value, true)}</code></pre>`)
  return `<h3>Request</h3>${fields}${samples.join("")}${examples.join("")}`
}

const response = ([status, { content, description, headers }]: [string, Operation["responses"][string]]) => {
  const examples = Object.values(Object.values(content)[0]?.examples ?? {})
  const headerList = headers
    ? `<ul>${Object.entries(headers).map(([name, header]) => `<li><code>${escape(name)}</code>: ${inlineMarkdown(header.description)}</li>`).join("")}</ul>`
    : ""
  const bodies = status.startsWith("2")
    ? examples.map((example) => `<p>${escape(example.summary)}:</p><pre><code>${json(example.value, true)}</code></pre>`).join("")
    : table(`Every ${escape(status)} answer`, ["When", "Body"], examples.map((example) => [escape(example.summary), `<code>${json(example.value, false)}</code>`]))
  return `<h4>${escape(status)}: ${inlineMarkdown(description)}</h4>${headerList}${bodies}`
}

const operation = (method: string, path: string, op: Operation) =>
  `<section aria-labelledby="${escape(op.operationId)}"><h2 id="${escape(op.operationId)}"><code>${method.toUpperCase()} ${escape(path)}</code></h2>
<p>${inlineMarkdown(op.summary)}</p>${op.description ? markdown(op.description) : ""}${request(op)}<h3>Responses</h3>${
    Object.entries(op.responses).map(response).join("\n")
  }</section>`

export const apiReferencePage = (document: OpenApiDocument) => {
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => [method, path, op as unknown as Operation] as const)
  )
  const title = escape(document.info.title)
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} reference</title><link rel="stylesheet" href="/dashboard/assets/style.css"></head>
<body><a class="skip-link" href="#main">Skip to content</a>
<header class="site-header"><p class="brand"><a href="/dashboard">${title}</a></p><nav aria-label="Operations"><ul>${
    operations.map(([method, path, op]) => `<li><a href="#${escape(op.operationId)}">${method.toUpperCase()} ${escape(path)}</a></li>`).join("")
  }</ul></nav></header>
<main id="main"><h1>${title} reference</h1>${markdown(document.info.description)}
<p>Every request carries <code>Authorization: Bearer &lt;API key&gt;</code>. Errors are <code>{"error": "&lt;message&gt;"}</code>. Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a>.</p>
${operations.map(([method, path, op]) => operation(method, path, op)).join("\n")}</main></body></html>`
}
