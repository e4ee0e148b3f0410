/**
 * The bytes kept of one form part (multipart.ts): the first `cap` of them and the count of all,
 * so a part is measured to its end while what is held stays bounded whatever the client sends.
 */
import type { FormText } from "../domain/describeForm.ts"

const KiB = 1024

const decoder = new TextDecoder("utf-8", { ignoreBOM: true })

/**
 * The first `cap` bytes of a part, and the count of all of them. `expected` is at most how many
 * bytes the body still had to bring when the part began (from its Content-Length).
 */
export class CappedBytes {
  private buffer: Uint8Array = new Uint8Array(0)
  private kept = 0
  size = 0

  /** `charset`: what the part's Content-Type declares, for `text`. */
  constructor(readonly cap: number, private readonly expected: number | undefined, private readonly charset?: string) {}

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

  /**
   * UTF-8 (what browsers and HTTP clients send), unless the part declares another charset a
   * hand-written body may use (`text/plain; charset=ISO-8859-1`); an unknown one is read as UTF-8.
   * A UTF-8 code point cut by the cap is left out.
   */
  text(): FormText {
    const truncated = this.size > this.cap
    const bytes = this.buffer.subarray(0, this.kept)
    const declared = decoderFor(this.charset)
    if (declared !== undefined) return { text: declared.decode(bytes), truncated }
    return { text: decoder.decode(truncated ? bytes.subarray(0, completeUtf8Length(bytes)) : bytes), truncated }
  }
}

/** A decoder for a declared charset other than UTF-8 that the runtime knows (WHATWG labels). */
const decoderFor = (charset: string | undefined): TextDecoder | undefined => {
  if (charset === undefined) return undefined
  try {
    // The runtime checks the label (throwing for an unknown one); its type lists only a few.
    const declared = new TextDecoder(charset as ConstructorParameters<typeof TextDecoder>[0], { ignoreBOM: true })
    return declared.encoding === "utf-8" ? undefined : declared
  } catch {
    return undefined
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
