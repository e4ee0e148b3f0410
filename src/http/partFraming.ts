/**
 * What stands between one part's content and the next (RFC 2046 §5.1.1): the rest of the
 * delimiter's line, then the part's header block (RFC 7578 §4.2), collected up to the empty line
 * that ends it and read for the one thing the form reader needs: the field the part holds.
 */
import { parseHeaderValue } from "./headerValue.ts"

const CR = 13
const LF = 10
const DASH = 45
const SPACE = 32
const TAB = 9

/**
 * A bound of our own (§8 sets none), past which a form is not one this API reads: 16 KiB for one
 * part's headers (and for the padding after a boundary) is what busboy and multipasta allow.
 */
const maxHeaderBytes = 16 * 1024

/**
 * How the form's lines end: CRLF (RFC 2046), or a bare LF, as a body written with PHP's `PHP_EOL`
 * or `"\n"` has them. The first delimiter line decides, for the whole form, as in Go's
 * mime/multipart ("a violation of the spec, but occurs in practice") and PHP's own form parser.
 */
export type Newline = "\r\n" | "\n"

/** The line after a delimiter: `--` closes the form; optional transport padding then a newline opens a part. */
export class DelimiterLine {
  private read: "start" | "padding" | "dash" | "cr" = "start"
  private padding = 0
  /** The newline that ended the line, once it has. */
  ending: Newline = "\r\n"

  clear(): void {
    this.read = "start"
    this.padding = 0
  }

  /** `newline` is the form's, once its first delimiter line has set it: a line ending otherwise is broken. */
  push(byte: number | undefined, newline: Newline | undefined): "more" | "close" | "part" | "broken" {
    if (this.read === "dash") return byte === DASH ? "close" : "broken"
    if (this.read === "cr") return byte === LF ? this.end("\r\n", newline) : "broken"
    if (byte === DASH && this.read === "start") {
      this.read = "dash"
    } else if (byte === SPACE || byte === TAB) {
      if (++this.padding > maxHeaderBytes) return "broken"
      this.read = "padding"
    } else if (byte === CR) {
      this.read = "cr"
    } else if (byte === LF) {
      return this.end("\n", newline)
    } else {
      return "broken"
    }
    return "more"
  }

  private end(ending: Newline, newline: Newline | undefined): "part" | "broken" {
    this.ending = ending
    return newline === undefined || newline === ending ? "part" : "broken"
  }
}

const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
/** A line's end in an LF form's headers. */
const lfLine = /\r?\n/

/**
 * A part's header block as far as it has arrived; one buffer, reused for every part. It starts
 * at a size that holds the headers clients send and doubles up to the bound as a block needs: a
 * zeroed 16 KiB array for every form took 0.16 ms of the request thread.
 */
export class HeaderBlock {
  private bytes = new Uint8Array(512)
  private length = 0
  private newline: Newline = "\r\n"

  /**
   * A new block, its lines ending in the form's newline. In a CRLF form a bare LF is no line end:
   * clients that escape only `\\` and `"` (Go's writer, older curl) send a newline in a filename as it is.
   * In an LF form a line ends at LF, a CR before it dropped, as Go's textproto reads one.
   */
  clear(newline: Newline): void {
    this.length = 0
    this.newline = newline
  }

  /** Adds a byte: `complete` at the empty line. */
  push(byte: number): "more" | "complete" | "overflow" {
    if (this.length === maxHeaderBytes) return "overflow"
    if (this.length === this.bytes.length) {
      const grown = new Uint8Array(Math.min(this.bytes.length * 2, maxHeaderBytes))
      grown.set(this.bytes)
      this.bytes = grown
    }
    const header = this.bytes
    header[this.length++] = byte
    if (byte !== LF) return "more"
    // Where the line just ended has its last byte: it is empty when that is the block's start or the previous line's LF.
    const afterCr = this.length >= 2 && header[this.length - 2] === CR
    if (this.newline === "\r\n" && !afterCr) return "more"
    const end = this.length - (afterCr ? 2 : 1)
    const empty = this.newline === "\r\n" ? end === 0 || (header[end - 1] === LF && header[end - 2] === CR) : end === 0 || header[end - 1] === LF
    return empty ? "complete" : "more"
  }

  /**
   * The name of the field the part holds when it is one of `caps`' names (undefined for any other
   * part), and the `charset` its Content-Type declares, if any; false when a line is not a header
   * (the form is then broken).
   */
  part<F extends string>(caps: Readonly<Record<F, number>>): { readonly name: F | undefined; readonly charset: string | undefined } | false {
    let name: F | undefined
    let charset: string | undefined
    for (const line of decoder.decode(this.bytes.subarray(0, this.length)).split(this.newline === "\r\n" ? "\r\n" : lfLine)) {
      if (line === "") continue
      const colon = line.indexOf(":")
      if (colon <= 0) return false
      const header = line.slice(0, colon).trim().toLowerCase()
      if (header === "content-disposition" && name === undefined) name = fieldNameOf(caps, line.slice(colon + 1))
      else if (header === "content-type" && charset === undefined) charset = parseHeaderValue(line.slice(colon + 1)).parameters.get("charset")
    }
    return { name, charset }
  }
}

/** The `name` of a `form-data` disposition when it is a field we read. */
const fieldNameOf = <F extends string>(caps: Readonly<Record<F, number>>, disposition: string): F | undefined => {
  const parsed = parseHeaderValue(disposition)
  const name = parsed.essence === "form-data" ? parsed.parameters.get("name") : undefined
  return name !== undefined && isFieldOf(caps, name) ? name : undefined
}

const isFieldOf = <F extends string>(caps: Readonly<Record<F, number>>, name: string): name is F => Object.hasOwn(caps, name)
