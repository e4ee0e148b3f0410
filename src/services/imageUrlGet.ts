/**
 * One hop of an image fetch (ImageFetcher.ts): a GET to an address already checked, the URL's host
 * name kept for the Host header and TLS (SNI and the certificate's name). The answer is a redirect,
 * or the body read as it streams and counted: past §8's 10 MB (announced or counted) it is read no
 * further and the request fails with the 413 of an image over 10 MB. Before its body is read, the
 * image's announced length (10 MB when it announces none) is held from the upload budget
 * (`take`), all at once as an upload's is: while the budget is spent the image waits in the
 * sender's socket, not in memory, and fetches that each held part of an image cannot wait on each
 * other for the rest.
 */
import http from "node:http"
import https from "node:https"
import * as Effect from "effect/Effect"
import { ImageTooLarge, ImageUrlFetchFailed } from "../domain/errors.ts"
import { limits } from "../domain/limits.ts"
import { checkedLookup } from "./checkedAddress.ts"
import type { ResolvedAddress } from "./HostResolver.ts"

export type HopAnswer =
  | { readonly _tag: "redirect"; readonly location: string }
  | { readonly _tag: "image"; readonly bytes: Uint8Array }

/** Holds `bytes` of the budget for the request, all at once; waits while they are not free. */
export type Take = (bytes: number) => Effect.Effect<void>

const redirects = new Set([301, 302, 303, 307, 308])

const userAgent = "image-metadata-service (imageUrl fetch)"

const failed = (reason: string) => new ImageUrlFetchFailed({ reason })

const cutShort = "the connection closed before the end of the image"

/** No answer came from the address: the next may give one (checkedAddress.ts, `onEachAddress`). */
export const connectionFailed = "the connection failed"

/**
 * The answer's head, its body not yet read; the connection is closed with the scope. The wait for
 * the head is interruptible (the fetch's deadline, a client gone, shutdown): as an
 * `acquireRelease`'s acquisition it was not, and a server that accepted and never answered held
 * its request, and the process's exit, for good.
 */
const answerTo = (url: URL, checked: ResolvedAddress) =>
  Effect.uninterruptibleMask((restore) =>
    restore(Effect.async<http.IncomingMessage, ImageUrlFetchFailed>((resume) => {
      const client = url.protocol === "https:" ? https : http
      // No agent: a pooled connection was opened to an address checked for an earlier request.
      const request = client.get(url, {
        agent: false,
        lookup: checkedLookup(checked),
        headers: { "user-agent": userAgent, accept: "image/*" }
      }, (response) => resume(Effect.succeed(response)))
      // Kept for the whole exchange: an error after the head reaches the body's reader as its end.
      request.on("error", () => resume(Effect.fail(failed(connectionFailed))))
      return Effect.sync(() => request.destroy())
    })).pipe(Effect.tap((response) => Effect.addFinalizer(() => Effect.sync(() => response.destroy()))))
  )

/** The body, counted as it comes; past 10 MB, `ImageTooLarge` (the scope then closes the connection). */
const bodyOf = (response: http.IncomingMessage) =>
  Effect.async<Uint8Array, ImageUrlFetchFailed | ImageTooLarge>((resume) => {
    const chunks: Array<Buffer> = []
    let received = 0
    const onData = (chunk: Buffer) => {
      received += chunk.length
      if (received <= limits.imageBytes) return chunks.push(chunk)
      stop()
      resume(Effect.fail(new ImageTooLarge()))
    }
    const onEnd = () => {
      stop()
      resume(response.complete ? Effect.succeed(new Uint8Array(Buffer.concat(chunks, received))) : Effect.fail(failed(cutShort)))
    }
    const onError = () => {
      stop()
      resume(Effect.fail(failed(cutShort)))
    }
    const stop = () => {
      response.off("data", onData)
      response.off("end", onEnd)
      response.off("error", onError)
    }
    response.on("data", onData)
    response.once("end", onEnd)
    response.once("error", onError)
    return Effect.sync(stop)
  })

export const getHop = (url: URL, checked: ResolvedAddress, take: Take): Effect.Effect<HopAnswer, ImageUrlFetchFailed | ImageTooLarge> =>
  Effect.scoped(Effect.gen(function* () {
    const response = yield* answerTo(url, checked)
    const status = response.statusCode ?? 0
    const location = response.headers.location
    if (redirects.has(status) && location !== undefined) return { _tag: "redirect", location } as const
    if (status < 200 || status > 299) return yield* failed(`the server answered ${status}`)
    const announced = Number(response.headers["content-length"])
    if (Number.isFinite(announced) && announced > limits.imageBytes) return yield* new ImageTooLarge()
    yield* take(Number.isFinite(announced) ? announced : limits.imageBytes)
    return { _tag: "image", bytes: yield* bodyOf(response) } as const
  }))
