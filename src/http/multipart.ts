/**
 * The streaming reader of the `POST /api/describe` form: check 4 of spec §4.1, with the limits of
 * §8 (http/upload.ts counts the body, check 3). The body is never held whole; what is kept is
 * bounded by the caps below, whatever the client sends.
 *
 * The multipart/form-data parser (RFC 2046 §5.1.1, RFC 7578) is our own, small state machine.
 * multipasta 0.2.8 (under @effect/platform) was tried and set aside: it fails a valid form whose
 * closing `--` arrives split across two chunks, reports an empty body as neither done nor failed,
 * and keeps buffering a field after its size limit has fired.
 */
import { Effect, Stream } from "effect"
import type { DescribeForm, FormText } from "../domain/describeForm.ts"
import { NotMultipart } from "../domain/errors.ts"
import { limits } from "../domain/limits.ts"
import { parseHeaderValue } from "./headerValue.ts"

const KiB = 1024

/**
 * Bytes kept of each field. The image keeps one byte over §8's 10 MB: enough for the caller to
 * answer 413 after the schema check (§4.1 check 6). A schema at the limits of §2.2, 20 fields of
 * 64 + 1,000 characters, is about 125 KiB even with every character `\u`-escaped, so 256 KiB leaves
 * room for layout; past it the text is truncated and the schema is the caller's to refuse. The
 * domain uses 1,000 characters of keywords and context and refuses a language over 64: 64 KiB
 * (at least 16,384 characters) is plenty to do either.
 */
const caps = {
  image: limits.imageBytes + 1,
  schema: 256 * KiB,
  keywords: 64 * KiB,
  context: 64 * KiB,
  language: 64 * KiB
} as const

type FieldName = keyof typeof caps

/**
 * Bounds of our own (§8 sets none): a form beyond them is not one this API reads (NotMultipart).
 * Five fields are read, so 64 parts leave room for clients that add their own; 16 KiB for one
 * part's headers (and for the padding after a boundary) is what busboy and multipasta allow.
 */
const maxParts = 64
const maxHeaderBytes = 16 * KiB

/**
 * Reads the form from the body, which the caller has bounded (check 3, http/upload.ts): without a
 * complete, well-framed form it is read to its end, keeping nothing, before `NotMultipart`.
 */
export const parseDescribeForm = <E>(input: {
  readonly contentType: string | undefined
  /** The announced Content-Length, if any: parts are then allocated once, at their final size. */
  readonly contentLength?: number | undefined
  readonly body: Stream.Stream<Uint8Array, E>
}): Effect.Effect<DescribeForm, NotMultipart | E> =>
  Effect.gen(function* () {
    const boundary = boundaryOf(input.contentType)
    const parser = boundary === undefined ? undefined : makeFormParser(boundary, input.contentLength)
    yield* Stream.runFold(input.body, parser, (parsing, chunk) => {
      parsing?.write(chunk)
      return parsing
    })
    const form = parser?.end()
    if (form === undefined) return yield* new NotMultipart()
    return form
  })

/**
 * §4.1: `multipart/form-data` with a boundary (RFC 2046: 1 to 70 characters, the last not a
 * space); else undefined. The header is read as browsers read it (headerValue.ts), quoted or not.
 */
const boundaryOf = (contentType: string | undefined): string | undefined => {
  const parsed = contentType === undefined ? undefined : parseHeaderValue(contentType)
  if (parsed?.essence !== "multipart/form-data") return undefined
  const boundary = parsed.parameters.get("boundary")
  return boundary !== undefined && /^[\x20-\x7e]{0,69}[\x21-\x7e]$/.test(boundary) ? boundary : undefined
}

// ---- The parser.

const CR = 13
const LF = 10
const DASH = 45
const SPACE = 32
const TAB = 9

const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8", { ignoreBOM: true })

/**
 * The first `cap` bytes of a part, and the count of all of them. `expected` is at most how many
 * bytes the body still had to bring when the part began (from its Content-Length).
 */
class CappedBytes {
  private buffer: Uint8Array = new Uint8Array(0)
  private kept = 0
  size = 0

  constructor(readonly cap: number, private readonly expected: number | undefined) {}

  /** `last` when the part ends within `data`: a part that is whole in it is kept as a view of it. */
  push(data: Uint8Array, from: number, to: number, last: boolean): void {
    this.size += to - from
    const take = Math.min(to - from, this.cap - this.kept)
    if (take <= 0) return
    if (last && this.kept === 0) {
      this.buffer = data.subarray(from, from + take)
      this.kept = take
      return
    }
    if (this.kept + take > this.buffer.length) {
      // Once at the size the body announced; without one, by doubling, so a small image does not
      // cost the whole cap up front. Under a burst of 10 MB uploads, the 16 MB of buffers that
      // doubling leaves behind per upload were most of the peak (docs/BENCHMARKS.md, figure 2).
      const wanted = this.buffer.length === 0 && this.expected !== undefined ? this.expected : 2 * this.buffer.length
      const grown = new Uint8Array(Math.min(this.cap, Math.max(this.kept + take, wanted, 4 * KiB)))
      grown.set(this.buffer.subarray(0, this.kept))
      this.buffer = grown
    }
    this.buffer.set(data.subarray(from, from + take), this.kept)
    this.kept += take
  }

  /** A view, not a copy: under a burst of uploads every copy of 10 MB counts. */
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.kept)
  }

  /** UTF-8 (what browsers and HTTP clients send); a code point cut by the cap is left out. */
  text(): FormText {
    const truncated = this.size > this.cap
    const bytes = this.buffer.subarray(0, this.kept)
    return { text: decoder.decode(truncated ? bytes.subarray(0, completeUtf8Length(bytes)) : bytes), truncated }
  }
}

/** The length of `bytes` without an incomplete UTF-8 sequence at its end. */
const completeUtf8Length = (bytes: Uint8Array): number => {
  let start = bytes.length - 1
  while (start > bytes.length - 4 && start > 0 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start--
  const lead = bytes[start] ?? 0
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
  return start + length > bytes.length ? start : bytes.length
}

/**
 * Where the parser is: before the first delimiter; right after a delimiter (`--` closes the form,
 * optional padding then CRLF opens a part); in a part's headers or content; after the closing
 * delimiter (the epilogue, ignored); or on a framing error, after which input is ignored.
 */
type Phase = "preamble" | "afterDelimiter" | "headers" | "content" | "epilogue" | "broken"

/**
 * A push parser: `write` each chunk as it arrives, then `end` gives the form, or undefined when
 * the body was not a complete, well-framed form. Never throws; keeps at most the field caps, one
 * part's headers and a tail shorter than the delimiter.
 */
const makeFormParser = (boundary: string, contentLength: number | undefined) => {
  const delimiter = encoder.encode(`\r\n--${boundary}`)
  const fields = new Map<FieldName, CappedBytes>()
  const header = new Uint8Array(maxHeaderBytes)
  let phase: Phase = "preamble"
  // A tail of the last chunk that may begin a delimiter. The first delimiter of the body has no
  // CRLF before it: start as if one had been read.
  let carry: Uint8Array = delimiter.subarray(0, 2)
  let parts = 0
  let headerLength = 0
  let padding = 0
  let delimiterLine: "start" | "padding" | "dash" | "cr" = "start"
  let part: CappedBytes | undefined
  // Bytes of the body in the chunks before the one being read.
  let written = 0

  /** Drops what was kept; returns a position past any chunk, which ends the write loop. */
  const broken = (): number => {
    phase = "broken"
    fields.clear()
    part = undefined
    carry = new Uint8Array(0)
    return Number.MAX_SAFE_INTEGER
  }

  const delimiterAt = (data: Uint8Array, at: number, length: number): boolean => {
    for (let k = 0; k < length; k++) if (data[at + k] !== delimiter[k]) return false
    return true
  }

  /** A delimiter at `at`: the content from `from` ends the part. */
  const endPart = (data: Uint8Array, from: number, at: number): void => {
    part?.push(data, from, at, true)
    part = undefined
    phase = "afterDelimiter"
    delimiterLine = "start"
    padding = 0
  }

  /** Content (or preamble) up to the next delimiter; an unfinished tail is carried over. */
  const readContent = (data: Uint8Array, from: number): number => {
    const n = delimiter.length
    // A native substring search over a view of the chunk: a CR-by-CR scan in JavaScript made reading
    // a 5 MB photo's form cost 17 M instructions instead of 11 M (a photo holds a CR every 256 bytes).
    const at = Buffer.from(data.buffer, data.byteOffset, data.byteLength).indexOf(delimiter, from)
    if (at !== -1) {
      endPart(data, from, at)
      return at + n
    }
    let tail = data.indexOf(CR, Math.max(from, data.length - n + 1))
    while (tail !== -1 && !delimiterAt(data, tail, data.length - tail)) tail = data.indexOf(CR, tail + 1)
    const end = tail === -1 ? data.length : tail
    part?.push(data, from, end, false)
    carry = data.slice(end)
    return data.length
  }

  /**
   * The carried tail against the head of a chunk at least a delimiter long: either a delimiter
   * begins in the tail, or the tail was content. Where to go on in `chunk`. Only the tail and a
   * delimiter's length are copied, so a part whole in the chunk stays a view of it.
   */
  const readCarry = (chunk: Uint8Array): number => {
    const n = delimiter.length
    const tail = carry
    const joined = new Uint8Array(tail.length + n)
    joined.set(tail)
    joined.set(chunk.subarray(0, n), tail.length)
    carry = new Uint8Array(0)
    for (let at = 0; at < tail.length; at++) {
      if (joined[at] === CR && delimiterAt(joined, at, n)) {
        endPart(joined, 0, at)
        return at + n - tail.length
      }
    }
    part?.push(tail, 0, tail.length, false)
    return 0
  }

  /** `--` (the end of the form) or transport padding then CRLF (a part follows). */
  const readAfterDelimiter = (data: Uint8Array, from: number): number => {
    for (let at = from; at < data.length; at++) {
      const byte = data[at]
      if (delimiterLine === "dash") {
        if (byte !== DASH) return broken()
        phase = "epilogue"
        return data.length
      } else if (delimiterLine === "cr") {
        if (byte !== LF) return broken()
        if (++parts > maxParts) return broken()
        phase = "headers"
        headerLength = 0
        return at + 1
      } else if (byte === DASH && delimiterLine === "start") {
        delimiterLine = "dash"
      } else if (byte === SPACE || byte === TAB) {
        if (++padding > maxHeaderBytes) return broken()
        delimiterLine = "padding"
      } else if (byte === CR) {
        delimiterLine = "cr"
      } else {
        return broken()
      }
    }
    return data.length
  }

  /** A part's header block, up to the empty line; then the part is opened. */
  const readHeaders = (data: Uint8Array, from: number): number => {
    for (let at = from; at < data.length; at++) {
      if (headerLength === maxHeaderBytes) return broken()
      header[headerLength++] = data[at] ?? 0
      if (header[headerLength - 1] === LF && header[headerLength - 2] === CR) {
        if (headerLength === 2 || (header[headerLength - 3] === LF && header[headerLength - 4] === CR)) {
          return openPart() ? at + 1 : broken()
        }
      }
    }
    return data.length
  }

  /** Keeps the part if it is the first with a name we read; anything else is only counted. */
  const openPart = (): boolean => {
    let name: FieldName | undefined
    for (const line of decoder.decode(header.subarray(0, headerLength)).split("\r\n")) {
      if (line === "") continue
      const colon = line.indexOf(":")
      if (colon <= 0) return false
      if (name !== undefined || line.slice(0, colon).trim().toLowerCase() !== "content-disposition") continue
      name = fieldNameOf(line.slice(colon + 1))
    }
    phase = "content"
    if (name !== undefined && !fields.has(name)) {
      part = new CappedBytes(caps[name], contentLength === undefined ? undefined : contentLength - written)
      fields.set(name, part)
    }
    return true
  }

  return {
    write(chunk: Uint8Array): void {
      if (phase === "epilogue" || phase === "broken") return
      let data = chunk
      if (carry.length > 0 && chunk.length < delimiter.length) {
        data = new Uint8Array(carry.length + chunk.length)
        data.set(carry)
        data.set(chunk, carry.length)
        carry = new Uint8Array(0)
      }
      let at = carry.length > 0 ? readCarry(chunk) : 0
      while (at < data.length) {
        if (phase === "preamble" || phase === "content") at = readContent(data, at)
        else if (phase === "afterDelimiter") at = readAfterDelimiter(data, at)
        else if (phase === "headers") at = readHeaders(data, at)
        else break
      }
      written += chunk.length
    },

    /** Without the closing delimiter the form is incomplete (§7.1: not a readable form). */
    end(): DescribeForm | undefined {
      if (phase !== "epilogue") return undefined
      const text = (name: FieldName) => fields.get(name)?.text()
      const image = fields.get("image")
      return {
        image: image === undefined ? undefined : { bytes: image.bytes(), size: image.size },
        schema: text("schema"),
        keywords: text("keywords"),
        context: text("context"),
        language: text("language")
      }
    }
  }
}

/** The `name` of a `form-data` disposition when it is a field we read (RFC 7578 §4.2). */
const fieldNameOf = (disposition: string): FieldName | undefined => {
  const parsed = parseHeaderValue(disposition)
  const name = parsed.essence === "form-data" ? parsed.parameters.get("name") : undefined
  return name !== undefined && isFieldName(name) ? name : undefined
}

const isFieldName = (name: string): name is FieldName => Object.hasOwn(caps, name)
