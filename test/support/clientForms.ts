/**
 * Multipart forms as real HTTP clients write them, byte for byte, each with boundaries drawn the
 * way that client draws them: for tests that the reader takes every client's form alike.
 */
import { FastCheck as fc } from "effect"
import { concatBytes, type PartSpec } from "./multipartBody.ts"

export interface HttpClientStyle {
  readonly name: string
  /** Boundaries as this client generates them. */
  readonly boundary: fc.Arbitrary<string>
  readonly contentType: (boundary: string) => string
  readonly body: (boundary: string, parts: ReadonlyArray<PartSpec>) => Uint8Array
}

const digits = "0123456789"
const hex = "0123456789abcdef"
const alphanumeric = `abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ${digits}`
/** WordPress's `wp_generate_password` with its default special characters. */
export const wordPressPasswordCharacters = `${alphanumeric}!@#$%^&*()`

const drawn = (prefix: string, alphabet: string, length: number, suffix = "") =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength: length, maxLength: length })
    .map((random) => `${prefix}${random}${suffix}`)

const disposition = (part: PartSpec) =>
  `Content-Disposition: form-data; name="${part.name}"${part.filename === undefined ? "" : `; filename="${part.filename}"`}`

/**
 * Each part: its delimiter line, the headers `headers` gives, a blank line, the data; then the
 * close. Lines end in `newline`: CRLF, as RFC 2046 has them, unless the client writes otherwise.
 */
const framed = (headers: (part: PartSpec) => ReadonlyArray<string>, close: string, newline = "\r\n") =>
  (boundary: string, parts: ReadonlyArray<PartSpec>) =>
    concatBytes([
      ...parts.flatMap((part) => [`--${boundary}${newline}`, ...headers(part).map((line) => `${line}${newline}`), newline, part.data, newline]),
      `--${boundary}--${close}`
    ])

const plain = (boundary: string) => `multipart/form-data; boundary=${boundary}`

/** Disposition, then a Content-Type on files only: curl, urllib3, undici, browsers. */
const usual = framed((part) => [
  disposition(part),
  ...(part.filename === undefined ? [] : [`Content-Type: ${part.contentType ?? "application/octet-stream"}`])
], "\r\n")

/**
 * PHP clients that write their own body (the ForVoyez WordPress plugin): 13 dashes and a random
 * password, unquoted; the body ends right after the closing delimiter.
 */
const phpHeaders = (part: PartSpec) => [disposition(part), ...(part.contentType === undefined ? [] : [`Content-Type: ${part.contentType}`])]

export const phpClient: HttpClientStyle = {
  name: "PHP (WordPress plugin)",
  boundary: drawn("-".repeat(13), wordPressPasswordCharacters, 24),
  contentType: plain,
  body: framed(phpHeaders, "")
}

/**
 * The same body written with `PHP_EOL` (or `"\n"`) on Linux: every line ends in a bare LF. PHP's own
 * form parser and Go's take it, so it works against the plugin author's own server.
 */
export const phpEolClient: HttpClientStyle = {
  ...phpClient,
  name: "PHP with PHP_EOL",
  body: framed(phpHeaders, "\n", "\n")
}

export const clientStyles: ReadonlyArray<HttpClientStyle> = [
  // curl 8: 24 dashes and 22 alphanumerics (older versions: 16 hex digits).
  { name: "curl", boundary: drawn("-".repeat(24), alphanumeric, 22), contentType: plain, body: usual },
  // urllib3's encode_multipart_formdata: binascii.hexlify(os.urandom(16)).
  { name: "Python requests", boundary: drawn("", hex, 32), contentType: plain, body: usual },
  // email.mime with the HTTP policy: `=` is special in a MIME parameter, so the boundary is quoted;
  // every part carries a Content-Type and MIME-Version.
  {
    name: "Python email",
    boundary: drawn("=".repeat(15), digits, 19, "=="),
    contentType: (boundary) => `multipart/form-data; boundary="${boundary}"`,
    body: framed((part) => [
      `Content-Type: ${part.filename === undefined ? 'text/plain; charset="utf-8"' : part.contentType ?? "application/octet-stream"}`,
      "MIME-Version: 1.0",
      disposition(part)
    ], "\r\n")
  },
  // Node's FormData (undici): `----formdata-undici-0` and 11 digits.
  { name: "Node FormData", boundary: drawn("----formdata-undici-0", digits, 11), contentType: plain, body: usual },
  // Bun's FormData (32 hex digits) and browsers (16 alphanumerics) after the same WebKit prefix.
  { name: "Bun FormData", boundary: drawn("----WebKitFormBoundary", hex, 32), contentType: plain, body: usual },
  { name: "browser", boundary: drawn("----WebKitFormBoundary", alphanumeric, 16), contentType: plain, body: usual },
  phpClient,
  phpEolClient
]
