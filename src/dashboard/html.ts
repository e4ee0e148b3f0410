/**
 * HTML from templates in which every interpolated value is escaped unless it is already `Html`,
 * so a key name or an account name can never become markup. Attribute values are always quoted
 * in the templates, so escaping quotes as well as `<`, `>` and `&` covers attributes too.
 */

/** Markup that is safe to send as is: built by `html`, never from a raw string. */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value
  }
}

export type Interpolation = Html | string | number | boolean | null | undefined | ReadonlyArray<Interpolation>

const entities: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => entities[char] ?? char)

/** Booleans, `null` and `undefined` render nothing, so `${condition && html`...`}` reads naturally. */
const render = (value: Interpolation): string => {
  if (value instanceof Html) return value.value
  if (typeof value === "string") return escapeHtml(value)
  if (typeof value === "number") return String(value)
  if (value === null || value === undefined || typeof value === "boolean") return ""
  return value.map(render).join("")
}

export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Interpolation>): Html =>
  new Html(strings.reduce((out, piece, i) => out + render(values[i - 1]) + piece))
