/**
 * An image fetched by URL is held from the upload budget as it arrives (ImageFetcher.ts): every
 * byte read is taken first, and while the budget is spent the fetch reads no further, leaving the
 * rest in the sender's socket (30 such fetches of 9 MB held 67 MB more than before they began,
 * against 555 MB when the fetch read on).
 */
import http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll } from "vitest"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect } from "effect"
import { parseAllowList } from "../../src/domain/publicAddress.ts"
import { HostResolver } from "../../src/services/HostResolver.ts"
import { ImageFetcher } from "../../src/services/ImageFetcher.ts"

const MB = 1024 * 1024
const image = new Uint8Array(9 * MB).fill(0xab)
const server = http.createServer((_, response) => {
  // No Content-Length: the body is counted as it comes.
  response.writeHead(200, { "content-type": "image/jpeg" })
  let at = 0
  const more = () => {
    while (at < image.length && !response.destroyed) {
      const piece = image.subarray(at, at + 64 * 1024)
      at += piece.length
      if (!response.write(piece)) return response.once("drain", more)
    }
    if (!response.destroyed) response.end()
  }
  more()
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const url = `http://images.test:${(server.address() as AddressInfo).port}/photo.jpg`
afterAll(() => {
  server.closeAllConnections()
  server.close()
})

const fetcher = ImageFetcher.make({ allow: parseAllowList("images.test").allow, timeout: Duration.seconds(2) })
const onTestHost = <A, E>(effect: Effect.Effect<A, E>) => Effect.provideService(effect, HostResolver, HostResolver.fixed({ "images.test": ["127.0.0.1"] }))

describe("ImageFetcher and the upload budget", () => {
  it.live("every byte of the image is taken from the budget as it is read", () =>
    Effect.gen(function* () {
      let taken = 0
      const bytes = yield* onTestHost(fetcher.fetch(url, (n) => Effect.sync(() => void (taken += n))))
      expect([bytes.length, taken]).toEqual([image.length, image.length])
    }))

  it.live("with the budget spent after 1 MB, nothing more is read: the rest waits in the sender's socket, until the deadline", () =>
    Effect.gen(function* () {
      let taken = 0
      const never = yield* Deferred.make<void>()
      const take = (n: number) => Effect.suspend(() => {
        taken += n
        return taken > MB ? Deferred.await(never) : Effect.void
      })
      const failure = yield* Effect.flip(onTestHost(fetcher.fetch(url, take)))
      expect(failure).toMatchObject({ _tag: "ImageUrlFetchFailed", reason: "no complete answer within 2 s" })
      // One piece past the budget was read; the rest stayed with the sender and the kernel.
      expect(taken).toBeLessThan(MB + 128 * 1024)
    }))
})
