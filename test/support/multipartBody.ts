/** Hand-built multipart/form-data bodies (RFC 7578), for tests that need exact bytes or broken ones. */

export interface PartSpec {
  readonly name: string
  readonly filename?: string | undefined
  readonly contentType?: string | undefined
  /** Extra header lines, sent as given. */
  readonly headers?: ReadonlyArray<string>
  readonly data: Uint8Array | string
}

export const multipartContentType = (boundary: string): string => `multipart/form-data; boundary=${boundary}`

const encoder = new TextEncoder()

export const bytesOf = (data: Uint8Array | string): Uint8Array =>
  typeof data === "string" ? encoder.encode(data) : data

export const concatBytes = (pieces: ReadonlyArray<Uint8Array | string>): Uint8Array => {
  const parts = pieces.map(bytesOf)
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** The head of one part: delimiter line, headers, blank line. */
export const partHead = (boundary: string, part: Omit<PartSpec, "data">): string =>
  [
    `--${boundary}`,
    `Content-Disposition: form-data; name="${part.name}"` +
    (part.filename === undefined ? "" : `; filename="${part.filename}"`),
    ...(part.contentType === undefined ? [] : [`Content-Type: ${part.contentType}`]),
    ...(part.headers ?? []),
    "",
    ""
  ].join("\r\n")

/** A whole form; `close: false` leaves out the closing delimiter. */
export const multipartBody = (
  boundary: string,
  parts: ReadonlyArray<PartSpec>,
  options: { readonly close?: boolean; readonly preamble?: string; readonly epilogue?: string } = {}
): Uint8Array =>
  concatBytes([
    options.preamble === undefined ? "" : `${options.preamble}\r\n`,
    ...parts.flatMap((part, i) => [i === 0 ? "" : "\r\n", partHead(boundary, part), part.data]),
    options.close === false ? "" : `\r\n--${boundary}--\r\n${options.epilogue ?? ""}`
  ])
