/**
 * A form part's header block (RFC 7578 §4.2): collected up to the empty line that ends it, within
 * a bound, then read for the one thing the form reader needs: the field the part holds. Only the
 * first `Content-Disposition` counts; other headers are passed over.
 */
import { parseHeaderValue } from "./headerValue.ts"

const CR = 13
const LF = 10

/**
 * A bound of our own (§8 sets none), past which a form is not one this API reads: 16 KiB for one
 * part's headers (and for the padding after a boundary) is what busboy and multipasta allow.
 */
export const maxHeaderBytes = 16 * 1024

const decoder = new TextDecoder("utf-8", { ignoreBOM: true })

/** One part's header block as far as it has arrived; one buffer, reused for every part. */
export class HeaderBlock {
  private readonly bytes = new Uint8Array(maxHeaderBytes)
  private length = 0

  clear(): void {
    this.length = 0
  }

  /** Adds a byte: `complete` at the empty line (CRLF at the start, or CRLFCRLF). */
  push(byte: number): "more" | "complete" | "overflow" {
    if (this.length === maxHeaderBytes) return "overflow"
    const header = this.bytes
    header[this.length++] = byte
    if (header[this.length - 1] === LF && header[this.length - 2] === CR) {
      if (this.length === 2 || (header[this.length - 3] === LF && header[this.length - 4] === CR)) return "complete"
    }
    return "more"
  }

  /**
   * The name of the field the part holds when it is one of `caps`' names; undefined for any other
   * part; false when a line is not a header (the form is then broken).
   */
  fieldName<F extends string>(caps: Readonly<Record<F, number>>): F | undefined | false {
    let name: F | undefined
    for (const line of decoder.decode(this.bytes.subarray(0, this.length)).split("\r\n")) {
      if (line === "") continue
      const colon = line.indexOf(":")
      if (colon <= 0) return false
      if (name !== undefined || line.slice(0, colon).trim().toLowerCase() !== "content-disposition") continue
      name = fieldNameOf(caps, line.slice(colon + 1))
    }
    return name
  }
}

/** The `name` of a `form-data` disposition when it is a field we read. */
const fieldNameOf = <F extends string>(caps: Readonly<Record<F, number>>, disposition: string): F | undefined => {
  const parsed = parseHeaderValue(disposition)
  const name = parsed.essence === "form-data" ? parsed.parameters.get("name") : undefined
  return name !== undefined && isFieldOf(caps, name) ? name : undefined
}

const isFieldOf = <F extends string>(caps: Readonly<Record<F, number>>, name: string): name is F => Object.hasOwn(caps, name)
