/**
 * The Markdown of the OpenAPI document's descriptions as HTML: a safe subset (paragraphs, lists,
 * inline code, emphasis, links to http(s) or this site). Everything is escaped first; no raw HTML
 * passes through, and a link to any other scheme (`javascript:`) stays text.
 */
import { escapeHtml as escape } from "../dashboard/html.ts"

const inlinePattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\(([^)\s]+)\)/g

const safeHref = (href: string) => /^(https?:\/\/|\/(?!\/)|#)/.test(href)

/** One line's inline Markdown, everything else escaped. */
export const inlineMarkdown = (text: string) => {
  let out = ""
  let last = 0
  for (const match of text.matchAll(inlinePattern)) {
    const [whole, code, strong, em, label, href] = match
    out += escape(text.slice(last, match.index))
    last = match.index + whole.length
    if (code !== undefined) out += `<code>${escape(code)}</code>`
    else if (strong !== undefined) out += `<strong>${escape(strong)}</strong>`
    else if (em !== undefined) out += `<em>${escape(em)}</em>`
    else if (label !== undefined && href !== undefined && safeHref(href)) out += `<a href="${escape(href)}">${escape(label)}</a>`
    else out += escape(whole)
  }
  return out + escape(text.slice(last))
}

const bullet = /^\s*[-*]\s+/
const numbered = /^\s*\d+\.\s+/

/** Blocks separated by blank lines: a block of `- ` or `1. ` lines is a list, any other a paragraph. */
export const markdown = (text: string) =>
  text.split(/\n\s*\n/).map((block) => block.trim()).filter((block) => block.length > 0).map((block) => {
    const lines = block.split("\n")
    const list = lines.every((line) => bullet.test(line)) ? ["ul", bullet] as const
      : lines.every((line) => numbered.test(line)) ? ["ol", numbered] as const
      : undefined
    return list
      ? `<${list[0]}>${lines.map((line) => `<li>${inlineMarkdown(line.replace(list[1], ""))}</li>`).join("")}</${list[0]}>`
      : `<p>${lines.map(inlineMarkdown).join("\n")}</p>`
  }).join("\n")
