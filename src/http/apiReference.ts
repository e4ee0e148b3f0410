/** A human-readable reference page rendered from the OpenAPI document (issue 7 §5). */
import { escapeHtml as escape } from "../dashboard/html.ts"
import { openApiDocument } from "./openapi.ts"


interface Operation {
  readonly summary: string
  readonly description?: string
  readonly requestBody?: { readonly content: Record<string, { readonly schema: { readonly properties: Record<string, { readonly description?: string }>; readonly required?: ReadonlyArray<string> } }> }
  readonly responses: Record<string, { readonly description: string; readonly content: Record<string, { readonly schema: unknown }> }>
}

/** The exact messages (and message patterns) a response schema lists. */
const messagesOf = (schema: unknown): ReadonlyArray<string> => {
  const error = (schema as { properties?: { error?: { anyOf?: ReadonlyArray<{ enum?: ReadonlyArray<string>; pattern?: string }> } } }).properties?.error
  return (error?.anyOf ?? []).flatMap((choice) => choice.enum ?? (choice.pattern ? [`matching ${choice.pattern}`] : []))
}

const operation = (method: string, path: string, op: Operation) => {
  const form = Object.values(op.requestBody?.content ?? {})[0]?.schema
  const fields = form
    ? `<h3>Form fields</h3><table><thead><tr><th scope="col">Field</th><th scope="col">Required</th><th scope="col">Rule</th></tr></thead><tbody>${
      Object.entries(form.properties).map(([name, field]) =>
        `<tr><td><code>${escape(name)}</code></td><td>${form.required?.includes(name) ? "yes" : "no"}</td><td>${escape(field.description ?? "")}</td></tr>`
      ).join("")
    }</tbody></table>`
    : ""
  const responses = Object.entries(op.responses).map(([status, response]) => {
    const messages = messagesOf(Object.values(response.content)[0]?.schema)
    return `<li><strong>${status}</strong> ${escape(response.description)}${
      messages.length ? `<ul>${messages.map((m) => `<li><code>${escape(m)}</code></li>`).join("")}</ul>` : ""
    }</li>`
  }).join("")
  return `<section><h2><code>${method.toUpperCase()} ${escape(path)}</code></h2><p>${escape(op.summary)}</p>${
    op.description ? `<p>${escape(op.description)}</p>` : ""
  }${fields}<h3>Responses</h3><ul>${responses}</ul></section>`
}

export const apiReferencePage = () => {
  const sections = Object.entries(openApiDocument.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => operation(method, path, op as unknown as Operation))
  )
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(openApiDocument.info.title)} reference</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse}td,th{border:1px solid #888;padding:.25rem .5rem;text-align:left}</style></head>
<body><main><h1>${escape(openApiDocument.info.title)}</h1><p>${escape(openApiDocument.info.description)}</p>
<p>Every request carries <code>Authorization: Bearer &lt;API key&gt;</code>. Errors are <code>{"error": "&lt;message&gt;"}</code>. Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a>.</p>
${sections.join("\n")}</main></body></html>`
}
