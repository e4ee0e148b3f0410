/**
 * A push parser for multipart/form-data (RFC 2046 §5.1.1, RFC 7578): `write` each chunk as it
 * arrives, then `end` gives the parts kept, or undefined when the body was not a complete,
 * well-framed form. Never throws; keeps at most each field's cap, one part's headers and a tail
 * shorter than the delimiter. Lines end in CRLF, or all in a bare LF (partFraming.ts). Which
 * fields are kept, and how much of each, is the caller's (multipart.ts); the first part of each
 * name is kept, any other part is only counted, except that an empty part gives way to a later
 * one of its name (an empty file input, then a real one).
 */
import { CappedBytes } from "./cappedBytes.ts"
import { DelimiterLine, HeaderBlock, type Newline } from "./partFraming.ts"

/**
 * A bound of our own (§8 sets none): a form beyond it is not one this API reads (NotMultipart).
 * Five fields are read, so 64 parts leave room for clients that add their own.
 */
const maxParts = 64

const CR = 13
const LF = 10

const encoder = new TextEncoder()

/**
 * Where the parser is: before the first delimiter; right after a delimiter (`--` closes the form,
 * optional padding then a newline opens a part); in a part's headers or content; after the closing
 * delimiter (the epilogue, ignored); or on a framing error, after which input is ignored.
 */
type Phase = "preamble" | "afterDelimiter" | "headers" | "content" | "epilogue" | "broken"

/**
 * All the parser carries from one chunk to the next, in one record that the steps below read and
 * advance; each step takes the chunk and a position and returns where to go on.
 */
interface ParserState<F extends string> {
  readonly boundary: string
  /**
   * The newline, then `--` and the boundary. Before the first delimiter line has set the form's
   * newline, a bare LF: a delimiter with CRLF holds one too.
   */
  delimiter: Uint8Array
  /** The form's newline, once its first delimiter line has set it. */
  newline: Newline | undefined
  readonly caps: Readonly<Record<F, number>>
  readonly contentLength: number | undefined
  /** The parts kept, by field name. */
  readonly fields: Map<F, CappedBytes>
  /** The current part's header block, as far as it has arrived. */
  readonly header: HeaderBlock
  phase: Phase
  /** A tail of the last chunk that may begin a delimiter. */
  carry: Uint8Array
  parts: number
  /** The rest of the line of the delimiter last read. */
  readonly delimiterLine: DelimiterLine
  /** The part being read, when it is one that is kept. */
  part: CappedBytes | undefined
  /** Bytes of the body in the chunks before the one being read. */
  written: number
}

/** Drops what was kept; returns a position past any chunk, which ends the write loop. */
const broken = <F extends string>(s: ParserState<F>): number => {
  s.phase = "broken"
  s.fields.clear()
  s.part = undefined
  s.carry = new Uint8Array(0)
  return Number.MAX_SAFE_INTEGER
}

/** The delimiter's first byte: where one may begin. */
const firstByte = <F extends string>(s: ParserState<F>): number => (s.newline === "\r\n" ? CR : LF)

const delimiterAt = (delimiter: Uint8Array, data: Uint8Array, at: number, length: number): boolean => {
  for (let k = 0; k < length; k++) if (data[at + k] !== delimiter[k]) return false
  return true
}

/** A delimiter at `at`: the content from `from` ends the part. */
const endPart = <F extends string>(s: ParserState<F>, data: Uint8Array, from: number, at: number): void => {
  s.part?.push(data, from, at, true)
  s.part = undefined
  s.phase = "afterDelimiter"
  s.delimiterLine.clear()
}

/** Content (or preamble) up to the next delimiter; an unfinished tail is carried over. */
const readContent = <F extends string>(s: ParserState<F>, data: Uint8Array, from: number): number => {
  const n = s.delimiter.length
  // A native substring search over a view of the chunk: a CR-by-CR scan in JavaScript made reading
  // a 5 MB photo's form cost 17 M instructions instead of 11 M (a photo holds a CR every 256 bytes).
  const at = Buffer.from(data.buffer, data.byteOffset, data.byteLength).indexOf(s.delimiter, from)
  if (at !== -1) {
    endPart(s, data, from, at)
    return at + n
  }
  const first = firstByte(s)
  let tail = data.indexOf(first, Math.max(from, data.length - n + 1))
  while (tail !== -1 && !delimiterAt(s.delimiter, data, tail, data.length - tail)) tail = data.indexOf(first, tail + 1)
  const end = tail === -1 ? data.length : tail
  s.part?.push(data, from, end, false)
  s.carry = data.slice(end)
  return data.length
}

/**
 * The carried tail against the head of a chunk at least a delimiter long: either a delimiter
 * begins in the tail, or the tail was content. Where to go on in `chunk`. Only the tail and a
 * delimiter's length are copied, so a part whole in the chunk stays a view of it.
 */
const readCarry = <F extends string>(s: ParserState<F>, chunk: Uint8Array): number => {
  const n = s.delimiter.length
  const tail = s.carry
  const joined = new Uint8Array(tail.length + n)
  joined.set(tail)
  joined.set(chunk.subarray(0, n), tail.length)
  s.carry = new Uint8Array(0)
  const first = firstByte(s)
  for (let at = 0; at < tail.length; at++) {
    if (joined[at] === first && delimiterAt(s.delimiter, joined, at, n)) {
      endPart(s, joined, 0, at)
      return at + n - tail.length
    }
  }
  s.part?.push(tail, 0, tail.length, false)
  return 0
}

/** The rest of a delimiter's line: the end of the form, or a part's headers next. */
const readAfterDelimiter = <F extends string>(s: ParserState<F>, data: Uint8Array, from: number): number => {
  for (let at = from; at < data.length; at++) {
    const read = s.delimiterLine.push(data[at], s.newline)
    if (read === "broken") return broken(s)
    if (read === "close") {
      s.phase = "epilogue"
      return data.length
    }
    if (read === "part") {
      if (++s.parts > maxParts) return broken(s)
      if (s.newline === undefined) {
        s.newline = s.delimiterLine.ending
        s.delimiter = delimiterOf(s.newline, s.boundary)
      }
      s.phase = "headers"
      s.header.clear(s.newline)
      return at + 1
    }
  }
  return data.length
}

/** A part's header block, up to the empty line; then the part is opened. */
const readHeaders = <F extends string>(s: ParserState<F>, data: Uint8Array, from: number): number => {
  for (let at = from; at < data.length; at++) {
    const read = s.header.push(data[at] ?? 0)
    if (read === "overflow") return broken(s)
    if (read === "complete") return openPart(s) ? at + 1 : broken(s)
  }
  return data.length
}

/**
 * Keeps the part if it is the first with a name we read, or the first after parts of its name
 * that were empty (what a browser sends for a file input left empty); anything else is only counted.
 */
const openPart = <F extends string>(s: ParserState<F>): boolean => {
  const part = s.header.part(s.caps)
  if (part === false) return false
  const { name, charset } = part
  s.phase = "content"
  if (name !== undefined && (s.fields.get(name)?.size ?? 0) === 0) {
    s.part = new CappedBytes(s.caps[name], s.contentLength === undefined ? undefined : s.contentLength - s.written, charset)
    s.fields.set(name, s.part)
  }
  return true
}

const delimiterOf = (newline: Newline, boundary: string) => encoder.encode(`${newline}--${boundary}`)

/** `caps` names the fields kept and the bytes kept of each; `contentLength` is the body's, if announced. */
export const makeFormParser = <F extends string>(
  boundary: string,
  contentLength: number | undefined,
  caps: Readonly<Record<F, number>>
) => {
  const delimiter = delimiterOf("\n", boundary)
  const s: ParserState<F> = {
    boundary,
    delimiter,
    newline: undefined,
    caps,
    contentLength,
    fields: new Map(),
    header: new HeaderBlock(),
    phase: "preamble",
    // The first delimiter of the body has no newline before it: start as if one had been read.
    carry: delimiter.subarray(0, 1),
    parts: 0,
    delimiterLine: new DelimiterLine(),
    part: undefined,
    written: 0
  }
  return {
    write(chunk: Uint8Array): void {
      if (s.phase === "epilogue" || s.phase === "broken") return
      let data = chunk
      if (s.carry.length > 0 && chunk.length < s.delimiter.length) {
        data = new Uint8Array(s.carry.length + chunk.length)
        data.set(s.carry)
        data.set(chunk, s.carry.length)
        s.carry = new Uint8Array(0)
      }
      let at = s.carry.length > 0 ? readCarry(s, chunk) : 0
      while (at < data.length) {
        if (s.phase === "preamble" || s.phase === "content") at = readContent(s, data, at)
        else if (s.phase === "afterDelimiter") at = readAfterDelimiter(s, data, at)
        else if (s.phase === "headers") at = readHeaders(s, data, at)
        else break
      }
      s.written += chunk.length
    },

    /** Without the closing delimiter the form is incomplete (§7.1: not a readable form). */
    end(): ReadonlyMap<F, CappedBytes> | undefined {
      return s.phase === "epilogue" ? s.fields : undefined
    }
  }
}
