/**
 * Raw HTTP/1.1 over a loopback socket, for tests that need what `fetch` hides: a body cut into the
 * pieces the test chooses, chunked or not, a Content-Length that lies, an upload that never ends,
 * an answer that comes before the upload is finished (spec §4.1 check 3, early 413).
 */
import { Data, Effect } from "effect"
import * as net from "node:net"

export interface RawRequest {
  readonly port: number
  /** Request line and headers, sent byte for byte (see `requestHead`), blank line included. */
  readonly head: string
  /** Body pieces, written in order; with `chunked`, each piece is one chunk. */
  readonly body?: Iterable<Uint8Array | string>
  /** Frame the pieces with `Transfer-Encoding: chunked` (the head must say so). */
  readonly chunked?: boolean
  /** Send the end of a chunked body (`0\r\n\r\n`). Default true; false leaves the upload open. */
  readonly finish?: boolean
  /** Wait this long between pieces, so each one reaches the server in its own read. */
  readonly pauseMs?: number
  /** For the whole exchange, in real time (not the `TestClock`). Default 10 s. */
  readonly timeoutMs?: number
  /**
   * After the response, keep the connection open (sending nothing more) until the server closes
   * it, or `timeoutMs` from the start, whichever comes first: `closedAfterMs` says which.
   */
  readonly awaitClose?: boolean
}

export interface RawResponse {
  readonly status: number
  /** Lower-cased names; a repeated header keeps its last value. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** Body bytes handed to the socket before the answer was complete (the kernel may hold some). */
  readonly bytesWritten: number
  /** With `awaitClose`: how long after the response the server closed the connection, if it did. */
  readonly closedAfterMs?: number | undefined
}

export class RawHttpError extends Data.TaggedError("RawHttpError")<{ readonly reason: string }> {}

/** `METHOD path HTTP/1.1`, the headers in order (`host` first unless given), then the blank line. */
export const requestHead = (method: string, path: string, headers: Readonly<Record<string, string>> = {}): string =>
  [
    `${method} ${path} HTTP/1.1`,
    ...Object.entries({ host: "127.0.0.1", ...headers }).map(([name, value]) => `${name}: ${value}`),
    "",
    ""
  ].join("\r\n")

/** Sends one request and reads one response; the socket is closed when the effect ends or is interrupted. */
export const sendRaw = (request: RawRequest): Effect.Effect<RawResponse, RawHttpError> =>
  Effect.async<RawResponse, RawHttpError>((resume) => {
    const socket = net.connect({ host: "127.0.0.1", port: request.port })
    socket.setNoDelay(true)
    const received: Array<Buffer> = []
    let bytesWritten = 0
    let settled = false
    const settle = (result: Effect.Effect<RawResponse, RawHttpError>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resume(result)
    }
    const timeoutMs = request.timeoutMs ?? 10_000
    // With `awaitClose`, the response once complete, and when it was.
    let answered: { readonly response: RawResponse; readonly at: number } | undefined
    const timer = setTimeout(
      () =>
        settle(answered === undefined
          ? Effect.fail(new RawHttpError({ reason: `no complete response in ${timeoutMs} ms` }))
          : Effect.succeed(answered.response)),
      timeoutMs
    )
    // The answer to a HEAD request is its head alone, whatever its Content-Length says (RFC 9110 §9.3.2).
    const bodiless = request.head.startsWith("HEAD ")
    const answer = (closed: boolean) => {
      if (answered !== undefined) {
        if (closed) settle(Effect.succeed({ ...answered.response, closedAfterMs: performance.now() - answered.at }))
        return
      }
      const response = parseResponse(Buffer.concat(received), closed, bodiless)
      if (response !== undefined && request.awaitClose === true && !closed) {
        answered = { response: { ...response, bytesWritten }, at: performance.now() }
      } else if (response !== undefined) {
        settle(Effect.succeed({ ...response, bytesWritten, ...(request.awaitClose === true ? { closedAfterMs: 0 } : {}) }))
      } else if (closed) {
        settle(Effect.fail(new RawHttpError({ reason: "connection closed before a complete response" })))
      }
    }
    socket.on("data", (data) => {
      received.push(typeof data === "string" ? Buffer.from(data) : data)
      answer(false)
    })
    socket.on("close", () => answer(true))
    // A server may answer early and close while we still write (EPIPE, ECONNRESET): "close" decides.
    socket.on("error", () => {})
    socket.on("connect", () => {
      void (async () => {
        await write(socket, request.head)
        let first = true
        for (const piece of request.body ?? []) {
          if (settled || socket.destroyed) return
          if (!first && request.pauseMs !== undefined) await sleep(request.pauseMs)
          first = false
          const bytes = typeof piece === "string" ? new TextEncoder().encode(piece) : piece
          if (request.chunked === true) {
            if (bytes.length === 0) continue // an empty chunk would end the body
            await write(socket, `${bytes.length.toString(16)}\r\n`)
            await write(socket, bytes)
            await write(socket, "\r\n")
          } else {
            await write(socket, bytes)
          }
          bytesWritten += bytes.length
        }
        if (request.chunked === true && request.finish !== false && !socket.destroyed) await write(socket, "0\r\n\r\n")
      })()
    })
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      socket.destroy()
    })
  })

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Resolves once the socket took the bytes (or closed): back-pressure for large bodies. */
const write = (socket: net.Socket, data: Uint8Array | string) =>
  new Promise<void>((resolve) => {
    if (socket.destroyed) return resolve()
    if (socket.write(data)) return resolve()
    const done = () => {
      socket.off("drain", done)
      socket.off("close", done)
      resolve()
    }
    socket.on("drain", done)
    socket.on("close", done)
  })

/**
 * One HTTP/1.1 response, once complete: by Content-Length, chunked coding, or the close; `bodiless`
 * (a HEAD request's) at the end of its head, any bytes already after it kept as its body.
 */
const parseResponse = (bytes: Buffer, closed: boolean, bodiless: boolean): Omit<RawResponse, "bytesWritten"> | undefined => {
  const headEnd = bytes.indexOf("\r\n\r\n")
  if (headEnd === -1) return undefined
  const [statusLine = "", ...lines] = bytes.subarray(0, headEnd).toString("latin1").split("\r\n")
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(":")
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]
    })
  )
  const status = Number(statusLine.split(" ")[1])
  const rest = bytes.subarray(headEnd + 4)
  if (bodiless) return { status, headers, body: rest.toString("utf8") }
  if (headers["transfer-encoding"]?.toLowerCase().includes("chunked")) {
    const body = dechunk(rest)
    return body === undefined ? undefined : { status, headers, body: body.toString("utf8") }
  }
  const length = headers["content-length"]
  if (length !== undefined) {
    const size = Number(length)
    return rest.length < size ? undefined : { status, headers, body: rest.subarray(0, size).toString("utf8") }
  }
  return closed || status === 204 || status === 304 ? { status, headers, body: rest.toString("utf8") } : undefined
}

const dechunk = (bytes: Buffer): Buffer | undefined => {
  const pieces: Array<Buffer> = []
  let at = 0
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at)
    if (lineEnd === -1) return undefined
    const size = parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16)
    if (Number.isNaN(size)) return undefined
    if (size === 0) return Buffer.concat(pieces)
    if (bytes.length < lineEnd + 2 + size + 2) return undefined
    pieces.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
}
