/** Load generation on loopback: one multipart body built once, sent by `fetch`; bounded in count and time. */
// First: a bench started by hand starts again as a load generator before anything below runs.
import "./loadGenerator.ts"
import type { Target } from "./targets.ts"

const encoder = new TextEncoder()

export interface Upload {
  readonly body: Uint8Array
  readonly contentType: string
}

/** A `multipart/form-data` body with the image part (and any text fields), built once per bench. */
export const uploadOf = (image: Uint8Array, fields: Readonly<Record<string, string>> = {}): Upload => {
  const boundary = "----bench-boundary-7f3a9c2e41d8"
  const pieces: Array<Uint8Array> = []
  for (const [name, value] of Object.entries(fields)) {
    pieces.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`))
  }
  pieces.push(
    encoder.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="upload.bin"\r\n` +
        `Content-Type: application/octet-stream\r\n\r\n`
    ),
    image,
    encoder.encode(`\r\n--${boundary}--\r\n`)
  )
  const body = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const piece of pieces) {
    body.set(piece, at)
    at += piece.length
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` }
}

export interface Sample {
  /** 0 when the request failed without an HTTP answer. */
  readonly status: number
  /** From the call to `fetch` to the last byte of the answer. */
  readonly ms: number
}

/** One `POST` of `upload` to `path` (default `/api/describe`), timed to the end of the answer. */
export const post = async (target: Target, upload: Upload, path = "/api/describe"): Promise<Sample> => {
  const started = performance.now()
  try {
    const response = await fetch(`${target.url}${path}`, {
      method: "POST",
      headers: { authorization: target.authorization, "content-type": upload.contentType },
      body: upload.body,
      signal: AbortSignal.timeout(120_000)
    })
    await response.arrayBuffer()
    return { status: response.status, ms: performance.now() - started }
  } catch {
    return { status: 0, ms: performance.now() - started }
  }
}

export interface Run {
  readonly samples: ReadonlyArray<Sample>
  /** Wall time from the first request sent to the last answer. */
  readonly wallMs: number
  /** True when the time bound stopped the run before `total` requests. */
  readonly cut: boolean
}

/**
 * `total` requests from `clients` concurrent clients, each sending its next request when its
 * previous answer is complete; no new request starts after `maxMs`.
 */
export const runClients = async (
  clients: number,
  total: number,
  maxMs: number,
  send: () => Promise<Sample>
): Promise<Run> => {
  const samples: Array<Sample> = []
  let started = 0
  const begin = performance.now()
  const client = async () => {
    while (started < total && performance.now() - begin < maxMs) {
      started++
      samples.push(await send())
    }
  }
  await Promise.all(Array.from({ length: clients }, client))
  return { samples, wallMs: performance.now() - begin, cut: samples.length < total }
}

/**
 * Brings a server to the steady state of one that has run a while, before anything is measured:
 * as the embedded database's WebAssembly gets hot it is compiled again to its optimised tier, in
 * background threads that took a third of the service's CPU over its first few hundred requests
 * (`perf record`, Bun 1.4.5). Small describe requests, refused at the image check, run every
 * statement of a request; `--quick` runs send fewer.
 */
export const warmUp = async (target: Target, quick: boolean): Promise<void> => {
  const upload = uploadOf(new Uint8Array(10).fill(0x61))
  for (let i = 0; i < (quick ? 300 : 1500); i++) await post(target, upload)
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
