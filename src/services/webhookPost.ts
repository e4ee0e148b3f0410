/**
 * One webhook delivery attempt (WebhookDelivery.ts): a POST to an address already checked
 * (checkedAddress.ts), the URL's host name kept for the Host header and TLS. Redirects are not
 * followed (their status is the answer). Of the reply only the status and a short excerpt of the
 * body are kept, what arrives of it within a second of the status; the rest is not read.
 */
import http from "node:http"
import https from "node:https"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { checkedLookup } from "./checkedAddress.ts"
import type { ResolvedAddress } from "./HostResolver.ts"

export interface PostAnswer {
  readonly status: number
  /** What arrives of the body within `excerptWaitMs` of the status, up to `excerptBytes`. */
  readonly excerpt: Effect.Effect<string>
}

/**
 * No answer: the connection failed or closed first. `unconnected` when it was never made (refused,
 * unreachable): the receiver cannot have seen the event, so another of its addresses may be tried.
 */
export class PostFailed extends Data.TaggedError("PostFailed")<{ readonly reason: string; readonly unconnected: boolean }> {}

/** Errors of a connection that was never made. */
const unconnectedCodes = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "EAFNOSUPPORT"])

/** The bytes of a reply body kept, to show what a failing receiver said. */
export const excerptBytes = 512

/** How long the excerpt is waited for once the status has come. */
const excerptWaitMs = 1_000

const userAgent = "image-metadata-service (webhook)"

export const postTo = (
  url: URL,
  checked: ResolvedAddress,
  headers: Readonly<Record<string, string>>,
  body: string
): Effect.Effect<PostAnswer, PostFailed> =>
  Effect.async<PostAnswer, PostFailed>((resume) => {
    let settled = false
    const settle = (outcome: Effect.Effect<PostAnswer, PostFailed>) => {
      if (settled) return
      settled = true
      resume(outcome)
    }
    const client = url.protocol === "https:" ? https : http
    const bytes = Buffer.from(body)
    // No agent: a pooled connection was opened to an address checked for an earlier request.
    const request = client.request(url, {
      method: "POST",
      agent: false,
      lookup: checkedLookup(checked),
      headers: { ...headers, "user-agent": userAgent, "content-type": "application/json", "content-length": `${bytes.length}` }
    }, (response) => {
      // The status is the answer, given now: a body that stalls or trickles only shortens the excerpt.
      const excerpt = new Promise<string>((resolve) => {
        const chunks: Array<Buffer> = []
        let kept = 0
        const done = () => {
          clearTimeout(deadline)
          request.destroy()
          // PostgreSQL text holds no NUL: a binary reply is kept as what it reads as.
          resolve(Buffer.concat(chunks).subarray(0, excerptBytes).toString("utf8").replaceAll("\u0000", ""))
        }
        const deadline = setTimeout(done, excerptWaitMs)
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk)
          kept += chunk.length
          if (kept >= excerptBytes) done()
        })
        response.on("end", done)
        response.on("error", done)
      })
      settle(Effect.succeed({ status: response.statusCode ?? 0, excerpt: Effect.promise(() => excerpt) }))
    })
    request.on("error", (error: NodeJS.ErrnoException) =>
      settle(Effect.fail(new PostFailed({
        reason: `the connection failed${error.code === undefined ? "" : ` (${error.code})`}`,
        unconnected: unconnectedCodes.has(error.code ?? "")
      }))))
    request.end(bytes)
    return Effect.sync(() => request.destroy())
  })
