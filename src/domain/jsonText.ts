/**
 * JSON read as text, where `JSON.parse` would lose what a client sent: an integer past 2^53
 * (a database id), `1e400` or `-0` become other numbers, and an object's integer-like keys move
 * first. Linear scans of text that `JSON.parse` has already accepted, except `nestsDeeperThan`,
 * which runs before it.
 */

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

const skipSpace = (text: string, i: number) => {
  while (isSpace(text.charCodeAt(i))) i++
  return i
}

/** Past the string that opens at `i`. */
const stringEnd = (text: string, i: number) => {
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x5c) i++
    else if (c === 0x22) return i + 1
  }
  return i
}

/**
 * Whether `text` ends inside an object: a `{` that nothing closes, strings within objects read as
 * strings. Any text; one scan.
 */
export const endsInsideObject = (text: string): boolean => {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22 && depth > 0) i = stringEnd(text, i) - 1
    else if (c === 0x7b) depth++
    else if (c === 0x7d && depth > 0) depth--
  }
  return depth > 0
}

/** Past the value that starts at `i`. */
export const valueEnd = (text: string, i: number): number => {
  const c = text.charCodeAt(i)
  if (c === 0x22) return stringEnd(text, i)
  if (c === 0x7b || c === 0x5b) {
    for (let depth = 0; i < text.length; i++) {
      const d = text.charCodeAt(i)
      if (d === 0x22) i = stringEnd(text, i) - 1
      else if (d === 0x7b || d === 0x5b) depth++
      else if ((d === 0x7d || d === 0x5d) && --depth === 0) return i + 1
    }
    return i
  }
  while (i < text.length && !isSpace(text.charCodeAt(i)) && !",]}".includes(text.charAt(i))) i++
  return i
}

/**
 * Calls `member(key, at)` for each member of the object that opens at `at` (`member` returns
 * where its value ends); returns where the object ends.
 */
export const eachMember = (text: string, at: number, member: (key: string, at: number) => number): number =>
  eachEntry(text, at, (i) => {
    const keyEnd = stringEnd(text, i)
    const quoted = text.slice(i, keyEnd)
    const key = quoted.includes("\\") ? String(JSON.parse(quoted)) : quoted.slice(1, -1)
    return member(key, skipSpace(text, skipSpace(text, keyEnd) + 1))
  })

/** Calls `element(index, at)` for each element of the array that opens at `at`, as `eachMember`. */
export const eachElement = (text: string, at: number, element: (index: number, at: number) => number): number => {
  let index = 0
  return eachEntry(text, at, (i) => element(index++, i))
}

/** Calls `entry(at)` for each entry of the container that opens at `at`; `entry` returns where it ends. */
const eachEntry = (text: string, at: number, entry: (at: number) => number): number => {
  let i = skipSpace(text, at + 1)
  if (text.charCodeAt(i) === 0x7d || text.charCodeAt(i) === 0x5d) return i + 1
  for (;;) {
    i = skipSpace(text, entry(i))
    const c = text.charCodeAt(i)
    if (c !== 0x2c) return i + 1
    i = skipSpace(text, i + 1)
  }
}

/** Where the first value of `text` starts. */
export const firstValue = (text: string): number => skipSpace(text, 0)

/**
 * `text` (valid JSON) as JSON.stringify writes its strings and spacing, its numbers and the order
 * of its keys as written: no spaces between tokens, and strings in their shortest form (`\u00e9`
 * is `é`, as Python's `json.dumps` writes it). So a value without a number JSON.parse would change
 * or an integer-like key is JSON.stringify's text of it (what an older version stored).
 */
export const canonical = (text: string): string => {
  let out = ""
  let from = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      const end = stringEnd(text, i)
      const token = text.slice(i, end)
      if (token.includes("\\")) {
        out += text.slice(from, i) + JSON.stringify(JSON.parse(token))
        from = end
      }
      i = end - 1
    } else if (isSpace(c)) {
      out += text.slice(from, i)
      from = i + 1
    }
  }
  return from === 0 ? text : out + text.slice(from)
}

/**
 * Whether `text` nests arrays and objects deeper than `limit`, read without parsing it (brackets
 * in strings do not count): what JSON.parse would take longest to refuse is refused first.
 */
export const nestsDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/**
 * `text` (valid JSON) with every object's keys sorted, its numbers and strings as written: the
 * same text for two values that differ only in the order of their keys.
 */
export const sortedKeysText = (text: string): string => {
  const value = (at: number): [string, number] => {
    const c = text.charCodeAt(at)
    if (c === 0x7b) {
      const members: Array<[string, string]> = []
      const end = eachMember(text, at, (key, i) => {
        const [inner, next] = value(i)
        members.push([key, inner])
        return next
      })
      members.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      return [`{${members.map(([key, inner]) => `${JSON.stringify(key)}:${inner}`).join(",")}}`, end]
    }
    if (c === 0x5b) {
      const elements: Array<string> = []
      const end = eachElement(text, at, (_, i) => {
        const [inner, next] = value(i)
        elements.push(inner)
        return next
      })
      return [`[${elements.join(",")}]`, end]
    }
    const end = valueEnd(text, at)
    return [text.slice(at, end), end]
  }
  return value(firstValue(text))[0]
}
