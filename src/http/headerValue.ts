/**
 * Header values of the form `essence; name=value; name="quoted \"value\""` (`Content-Type`, a
 * part's `Content-Disposition`), read as browsers and undici read a MIME type: the WHATWG
 * algorithm (https://mimesniff.spec.whatwg.org/#parsing-a-mime-type). It is more lenient than
 * RFC 9110's grammar on purpose: an unquoted value runs up to the next `;`, so a boundary such as
 * `-------------aB3!@#$%^&*()` (what PHP clients generate) is read as they meant it, and a
 * malformed parameter is skipped rather than failing the whole value.
 */

/** HTTP token code points (RFC 9110 §5.6.2). */
const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** HTTP quoted-string token code points: tab, printable ASCII and U+0080 to U+00FF. */
const quotedStringToken = /^[\t\x20-\x7e\x80-\xff]*$/

const isHttpWhitespace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\r"

const trimEnd = (value: string) => {
  let end = value.length
  while (end > 0 && isHttpWhitespace(value[end - 1])) end--
  return value.slice(0, end)
}

const trim = (value: string) => {
  let start = 0
  while (start < value.length && isHttpWhitespace(value[start])) start++
  return trimEnd(value.slice(start))
}

/** Only A to Z: `toLowerCase` would also fold characters such as the Kelvin sign into ASCII. */
const asciiLowercase = (value: string) => value.replace(/[A-Z]/g, (c) => c.toLowerCase())

/** The index of the first of `characters` at or after `from`, or the end of `value`. */
const nextOf = (value: string, characters: string, from: number) => {
  let at = from
  while (at < value.length && !characters.includes(value[at] ?? "")) at++
  return at
}

/** A quoted string starting at `start` (its `"`), unescaped; it may lack its closing quote. */
const quotedString = (value: string, start: number): readonly [text: string, end: number] => {
  let text = ""
  let at = start + 1
  while (at < value.length) {
    const c = value[at++]
    if (c === '"') break
    if (c === "\\") {
      if (at === value.length) return [`${text}\\`, at]
      text += value[at++]
    } else {
      text += c
    }
  }
  return [text, at]
}

export interface HeaderValue {
  /** What comes before the first `;`, trimmed, in ASCII lower case: `multipart/form-data`, `form-data`. */
  readonly essence: string
  /** Names in lower case; the first of a name wins. A `Map`, so `__proto__` is only ever a key. */
  readonly parameters: ReadonlyMap<string, string>
}

/** Never fails: what cannot be read is left out, and the caller checks for what it needs. */
export const parseHeaderValue = (input: string): HeaderValue => {
  const value = trim(input)
  let at = nextOf(value, ";", 0)
  const essence = asciiLowercase(trimEnd(value.slice(0, at)))
  const parameters = new Map<string, string>()
  while (at < value.length) {
    at++ // past the `;`
    while (at < value.length && isHttpWhitespace(value[at])) at++
    const nameEnd = nextOf(value, ";=", at)
    const name = asciiLowercase(value.slice(at, nameEnd))
    at = nameEnd
    if (at === value.length) break
    if (value[at] === ";") continue
    at++ // past the `=`
    if (at === value.length) break
    let parameter: string
    if (value[at] === '"') {
      const [text, end] = quotedString(value, at)
      parameter = text
      at = nextOf(value, ";", end)
    } else {
      const end = nextOf(value, ";", at)
      parameter = trimEnd(value.slice(at, end))
      at = end
      if (parameter === "") continue
    }
    if (token.test(name) && quotedStringToken.test(parameter) && !parameters.has(name)) parameters.set(name, parameter)
  }
  return { essence, parameters }
}
