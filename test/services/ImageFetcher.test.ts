/**
 * An image fetched by URL is held from the upload budget before its body is read (imageUrlGet.ts):
 * its announced length, or the 10 MB cap when it announces none, all at once, so that fetches
 * holding part of an image each never wait on each other for the rest.
 */
import http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll } from "vitest"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect } from "effect"
import { limits } from "../../src/domain/limits.ts"
import { parseAllowList } from "../../src/domain/publicAddress.ts"
import { HostResolver } from "../../src/services/HostResolver.ts"
import { ImageFetcher } from "../../src/services/ImageFetcher.ts"
import * as UploadBudget from "../../src/services/UploadBudget.ts"

const MB = 1024 * 1024
const image = new Uint8Array(3 * MB).fill(0xab)

/**
 * `/announced` sends a Content-Length, `/streamed` none, both the image in 64 KiB pieces as fast
 * as the socket takes them; `/slow` announces it and sends a piece every 5 ms, so that fetches at
 * once all have part of it in flight.
 */
const server = http.createServer((request, response) => {
  response.writeHead(200, request.url === "/streamed" ? {} : { "content-length": image.length })
  let at = 0
  const more = (): unknown => {
    while (at < image.length && !response.destroyed) {
      const piece = image.subarray(at, at + 64 * 1024)
      at += piece.length
      const later = request.url === "/slow" ? () => setTimeout(more, 5) : more
      if (!response.write(piece)) return response.once("drain", later)
      if (request.url === "/slow") return later()
    }
    return response.destroyed || response.end()
  }
  more()
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const at = (path: string) => `http://images.test:${(server.address() as AddressInfo).port}${path}`
afterAll(() => {
  server.closeAllConnections()
  server.close()
})

const fetcher = ImageFetcher.make({ allow: parseAllowList("images.test").allow, timeout: Duration.seconds(3) })
const onTestHost = <A, E>(effect: Effect.Effect<A, E>) => Effect.provideService(effect, HostResolver, HostResolver.fixed({ "images.test": ["127.0.0.1"] }))

/** Accepts connections and never answers. */
const silent = http.createServer(() => {})
await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
afterAll(() => {
  silent.closeAllConnections()
  silent.close()
})

describe("ImageFetcher and a server that never answers", () => {
  it.live("the fetch ends at its deadline, and can be interrupted before it", () =>
    Effect.gen(function* () {
      const quick = ImageFetcher.make({ allow: parseAllowList("images.test").allow, timeout: Duration.millis(300) })
      const url = `http://images.test:${(silent.address() as AddressInfo).port}/a.jpg`
      const failed = yield* Effect.flip(onTestHost(quick.fetch(url, () => Effect.void)))
      expect(failed).toMatchObject({ _tag: "ImageUrlFetchFailed", reason: "no complete answer within 0.3 s" })
      // Interrupted from outside (a client gone, shutdown), long before the deadline of 3 s.
      const interrupted = yield* onTestHost(fetcher.fetch(url, () => Effect.void)).pipe(Effect.timeoutOption("300 millis"))
      expect(interrupted._tag).toBe("None")
    }), 10_000)
})

describe("ImageFetcher and a host of several addresses", () => {
  it.live("goes on to the next address when one refuses the connection, as browsers and curl do; fails when none answers", () =>
    Effect.gen(function* () {
      const multi = ImageFetcher.make({ allow: parseAllowList("multi.test").allow, timeout: Duration.seconds(3) })
      const url = `http://multi.test:${(server.address() as AddressInfo).port}/announced`
      // The server listens on 127.0.0.1 only: 127.0.0.2 and 127.0.0.3 refuse.
      const fetched = yield* multi.fetch(url, () => Effect.void).pipe(
        Effect.provideService(HostResolver, HostResolver.fixed({ "multi.test": ["127.0.0.2", "127.0.0.3", "127.0.0.1"] }))
      )
      expect(fetched.length).toBe(image.length)
      const failed = yield* Effect.flip(multi.fetch(url, () => Effect.void)).pipe(
        Effect.provideService(HostResolver, HostResolver.fixed({ "multi.test": ["127.0.0.2", "127.0.0.3"] }))
      )
      expect(failed).toMatchObject({ _tag: "ImageUrlFetchFailed", reason: "the connection failed" })
    }))
})

describe("ImageFetcher and the upload budget", () => {
  it.live("the announced length is held once, before the body; without one, the 10 MB cap", () =>
    Effect.gen(function* () {
      for (const [path, held] of [["/announced", image.length], ["/streamed", limits.imageBytes]] as const) {
        const takes: Array<number> = []
        const bytes = yield* onTestHost(fetcher.fetch(at(path), (n) => Effect.sync(() => void takes.push(n))))
        expect([path, bytes.length, takes]).toEqual([path, image.length, [held]])
      }
    }))

  it.live("with the budget spent, the body is not read: the fetch waits, until its deadline", () =>
    Effect.gen(function* () {
      const never = yield* Deferred.make<void>()
      const failure = yield* Effect.flip(onTestHost(fetcher.fetch(at("/announced"), () => Deferred.await(never))))
      expect(failure).toMatchObject({ _tag: "ImageUrlFetchFailed", reason: "no complete answer within 3 s" })
    }))

  it.scopedLive("more fetches at once than one account's share holds: each waits its turn and all finish", () =>
    Effect.gen(function* () {
      // A share of 11 MB: three 3 MB images at a time.
      const budget = yield* UploadBudget.make(22 * MB, Effect.void)
      const patient = ImageFetcher.make({ allow: parseAllowList("images.test").allow, timeout: Duration.seconds(10) })
      const one = Effect.scoped(Effect.gen(function* () {
        const held = yield* budget.hold("one account")
        return (yield* onTestHost(patient.fetch(at("/slow"), held.take))).length
      }))
      expect(yield* Effect.all(Array.from({ length: 12 }, () => one), { concurrency: "unbounded" })).toEqual(Array.from({ length: 12 }, () => image.length))
    }))
})
