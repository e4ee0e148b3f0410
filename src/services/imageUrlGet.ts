/**
 * One hop of an image fetch (ImageFetcher.ts): a GET to an address already checked, the URL's host
 * name kept for the Host header and TLS (SNI and the certificate's name). The answer is a redirect,
 * or the body read as it streams and counted: past §8's 10 MB (announced or counted) it is read no
 * further and the request fails with the 413 of an image over 10 MB.
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

const redirects = new Set([301, 302, 303, 307, 308])

const userAgent = "image-metadata-service (imageUrl fetch)"

export const getHop = (url: URL, checked: ResolvedAddress): Effect.Effect<HopAnswer, ImageUrlFetchFailed | ImageTooLarge> =>
  Effect.async<HopAnswer, ImageUrlFetchFailed | ImageTooLarge>((resume) => {
    let settled = false
    const settle = (outcome: Effect.Effect<HopAnswer, ImageUrlFetchFailed | ImageTooLarge>) => {
      if (settled) return
      settled = true
      resume(outcome)
    }
    const failed = (reason: string) => settle(Effect.fail(new ImageUrlFetchFailed({ reason })))
    const client = url.protocol === "https:" ? https : http
    // No agent: a pooled connection was opened to an address checked for an earlier request.
    const request = client.get(url, {
      agent: false,
      lookup: checkedLookup(checked),
      headers: { "user-agent": userAgent, accept: "image/*" }
    }, (response) => {
      const status = response.statusCode ?? 0
      const location = response.headers.location
      if (redirects.has(status) && location !== undefined) {
        response.resume()
        return settle(Effect.succeed({ _tag: "redirect", location }))
      }
      if (status < 200 || status > 299) {
        request.destroy()
        return failed(`the server answered ${status}`)
      }
      const announced = Number(response.headers["content-length"])
      if (Number.isFinite(announced) && announced > limits.imageBytes) {
        request.destroy()
        return settle(Effect.fail(new ImageTooLarge()))
      }
      const chunks: Array<Buffer> = []
      let received = 0
      response.on("data", (chunk: Buffer) => {
        received += chunk.length
        if (received > limits.imageBytes) {
          request.destroy()
          return settle(Effect.fail(new ImageTooLarge()))
        }
        chunks.push(chunk)
      })
      response.on("end", () =>
        response.complete
          ? settle(Effect.succeed({ _tag: "image", bytes: new Uint8Array(Buffer.concat(chunks, received)) }))
          : failed("the connection closed before the end of the image"))
      response.on("error", () => failed("the connection closed before the end of the image"))
    })
    request.on("error", () => failed("the connection failed"))
    return Effect.sync(() => request.destroy())
  })
