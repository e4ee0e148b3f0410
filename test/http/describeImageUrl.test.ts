/**
 * Images by URL (README, "Images by URL"): `imageUrl` instead of the file, fetched from a loopback
 * image server that the operator's allow list names (`images.test`, which only the test's resolver
 * knows: a success shows the connection went to the address checked, not to a second look-up).
 * Every refusal and failure is a 400 (an image over 10 MB a 413) that leaves the balance as it was.
 */
import http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll } from "vitest"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { limits } from "../../src/domain/limits.ts"
import { parseAllowList } from "../../src/domain/publicAddress.ts"
import { HostResolver } from "../../src/services/HostResolver.ts"
import { ImageFetcher } from "../../src/services/ImageFetcher.ts"
import { pglite } from "../support/database.ts"
import { customer, error, jpeg, postDescribe } from "../support/describe.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const hits = new Map<string, number>()
const userAgents: Array<string | undefined> = []
const authorizations: Array<string | undefined> = []
const MB = 1024 * 1024

/** The image server: a path per behaviour. */
const imageServer = http.createServer((request, response) => {
  const path = request.url ?? "/"
  hits.set(path, (hits.get(path) ?? 0) + 1)
  userAgents.push(request.headers["user-agent"])
  authorizations.push(request.headers.authorization)
  const redirect = /^\/redirect\/(\d+)$/.exec(path)
  if (redirect !== null) {
    const left = Number(redirect[1])
    response.writeHead(302, { location: left === 0 ? "/photo.jpg" : `/redirect/${left - 1}` })
    return response.end()
  }
  switch (path) {
    case "/photo.jpg":
      response.writeHead(200, { "content-type": "image/jpeg", "content-length": jpeg.length })
      return response.end(jpeg)
    case "/text":
      response.writeHead(200, { "content-type": "image/jpeg" })
      return response.end("not a picture at all")
    case "/chunked-11mb": {
      // No Content-Length: only counting can stop it.
      response.writeHead(200, { "content-type": "image/jpeg" })
      const chunk = new Uint8Array(MB).fill(0xff)
      let sent = 0
      const more = () => {
        while (sent < 11 && !response.destroyed) {
          sent++
          if (!response.write(chunk)) return response.once("drain", more)
        }
        if (!response.destroyed) response.end()
      }
      return more()
    }
    case "/announced-50mb":
      // Announces more than 10 MB, then sends a little and stalls: the announcement alone answers.
      response.writeHead(200, { "content-type": "image/jpeg", "content-length": 50 * MB })
      return response.write(jpeg)
    case "/slow":
      response.writeHead(200, { "content-type": "image/jpeg", "content-length": jpeg.length })
      return response.write(jpeg.subarray(0, 10))
    case "/to-loopback":
      response.writeHead(302, { location: `http://127.0.0.1:${port}/photo.jpg` })
      return response.end()
    case "/to-credentials":
      response.writeHead(302, { location: `http://user:secret@images.test:${port}/photo.jpg` })
      return response.end()
    case "/to-file":
      response.writeHead(302, { location: "file:///etc/passwd" })
      return response.end()
    default:
      response.writeHead(404)
      return response.end("no such image")
  }
})
await new Promise<void>((resolve) => imageServer.listen(0, "127.0.0.1", resolve))
const port = (imageServer.address() as AddressInfo).port
afterAll(() => {
  imageServer.closeAllConnections()
  imageServer.close()
})

const at = (path: string) => `http://images.test:${port}${path}`

const resolver = HostResolver.fixed({
  "images.test": ["127.0.0.1"],
  "private.test": ["10.0.0.1"],
  "loopback.test": ["127.0.0.1"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "metadata.test": ["169.254.169.254"],
  "ula.test": ["fd00::1"],
  // One public address is not enough: every address of the name must be one we may reach.
  "mixed.test": ["93.184.216.34", "127.0.0.1"]
})

const timeout = Duration.millis(700)
const services = Layer.mergeAll(
  servicesOn(pglite),
  Layer.succeed(HostResolver, resolver),
  Layer.succeed(ImageFetcher, ImageFetcher.make({ allow: parseAllowList("images.test").allow, timeout }))
)

const refused = error(400, "Bad Request, imageUrl must be a public http or https URL")
const fetchFailed = (reason: string) => error(400, `Bad Request, the image at imageUrl could not be fetched: ${reason}`)
const schema = { title: "title", alternativeText: "alternativeText", caption: "caption" }
/** The fake model's answer to `schema` (Describer.echo). */
const echoed = { title: "title value", alternativeText: "alternativeText value", caption: "caption value" }

/** A describe of `imageUrl` by a customer with 2 credits: the answer and the balance after. */
const describeUrl = (imageUrl: string, image?: Uint8Array) =>
  Effect.gen(function* () {
    const c = yield* customer(2)
    const answer = yield* postDescribe({ imageUrl, ...(image === undefined ? {} : { image }), schema: JSON.stringify(schema) }, c.token)
    return { answer, balance: yield* c.balance }
  })

layer(serverWith(services), { excludeTestServices: true })("POST /api/describe with imageUrl", (it) => {
  it.effect("fetches the image and describes it: 200, one credit, the service named in the User-Agent", () =>
    Effect.gen(function* () {
      userAgents.length = 0
      const { answer, balance } = yield* describeUrl(at("/photo.jpg"))
      expect(answer).toEqual({ status: 200, contentType: "application/json", body: echoed })
      expect(balance).toBe(1)
      expect(userAgents).toEqual([expect.stringContaining("image-metadata-service")])
    }))

  it.effect("follows 3 redirects; a fourth is refused, uncharged", () =>
    Effect.gen(function* () {
      expect(yield* describeUrl(at("/redirect/2"))).toEqual({ answer: { status: 200, contentType: "application/json", body: echoed }, balance: 1 })
      expect(yield* describeUrl(at("/redirect/3"))).toEqual({ answer: fetchFailed("more than 3 redirects"), balance: 2 })
    }))

  it.effect("with both the file and a URL, the file is described and the URL not fetched", () =>
    Effect.gen(function* () {
      hits.delete("/never")
      const { answer, balance } = yield* describeUrl(at("/never"), jpeg)
      expect([answer.status, balance, hits.get("/never")]).toEqual([200, 1, undefined])
    }))

  it.effect("with an empty file part beside the URL (a browser's empty file input), the URL is fetched", () =>
    Effect.gen(function* () {
      expect(yield* describeUrl(at("/photo.jpg"), new Uint8Array(0))).toEqual({ answer: { status: 200, contentType: "application/json", body: echoed }, balance: 1 })
    }))

  it.effect("a blank URL beside an empty file part (a form forwarded whole) is no image: the spec's 400, uncharged", () =>
    Effect.gen(function* () {
      expect(yield* describeUrl("  ", new Uint8Array(0))).toEqual({ answer: error(400, "Bad Request, No file uploaded"), balance: 2 })
      expect(yield* describeUrl("")).toEqual({ answer: error(400, "Bad Request, No file uploaded"), balance: 2 })
    }))

  it.effect("a URL over 8 KiB is refused as too long, never fetched: 400, uncharged", () =>
    Effect.gen(function* () {
      hits.delete("/photo.jpg")
      const long = `${at("/photo.jpg")}?${"a".repeat(8 * 1024)}`
      expect(yield* describeUrl(long)).toEqual({ answer: fetchFailed("its URL is over 8 KiB"), balance: 2 })
      expect(hits.get("/photo.jpg")).toBeUndefined()
    }))

  it.effect("a user name or password in the URL, or in a redirect's, is refused, never sent: 400, uncharged", () =>
    Effect.gen(function* () {
      hits.delete("/photo.jpg")
      authorizations.length = 0
      const withUser = at("/photo.jpg").replace("//", "//user:secret@")
      expect(yield* describeUrl(withUser)).toEqual({
        answer: fetchFailed("its URL holds a user name or password, which are never sent"),
        balance: 2
      })
      expect(yield* describeUrl(at("/photo.jpg").replace("//", "//user@"))).toEqual({
        answer: fetchFailed("its URL holds a user name or password, which are never sent"),
        balance: 2
      })
      expect(yield* describeUrl(at("/to-credentials"))).toEqual({
        answer: fetchFailed("it redirects to a URL with a user name or password, which are never sent"),
        balance: 2
      })
      expect([hits.get("/photo.jpg"), authorizations]).toEqual([undefined, [undefined]])
    }))

  it.effect("a 404 from the server: 400, uncharged", () =>
    Effect.gen(function* () {
      expect(yield* describeUrl(at("/missing"))).toEqual({ answer: fetchFailed("the server answered 404"), balance: 2 })
    }))

  it.effect("content that is not an image: the upload's 400", () =>
    Effect.gen(function* () {
      expect(yield* describeUrl(at("/text"))).toEqual({ answer: error(400, "Bad Request, Invalid image file"), balance: 2 })
    }))

  it.effect("over 10 MB, streamed without a length or announced: the 413 of an image over 10 MB", () =>
    Effect.gen(function* () {
      const tooLarge = error(413, `Image too large: the maximum is ${limits.imageBytes / MB} MB`)
      expect(yield* describeUrl(at("/chunked-11mb"))).toEqual({ answer: tooLarge, balance: 2 })
      const [elapsed, announced] = yield* Effect.timed(describeUrl(at("/announced-50mb")))
      expect(announced).toEqual({ answer: tooLarge, balance: 2 })
      // Answered from the announcement, not at the deadline of a body that never comes.
      expect(Duration.toMillis(elapsed)).toBeLessThan(Duration.toMillis(timeout))
    }))

  it.effect("a server slower than the deadline: 400, uncharged", () =>
    Effect.gen(function* () {
      expect(yield* describeUrl(at("/slow"))).toEqual({ answer: fetchFailed("no complete answer within 0.7 s"), balance: 2 })
    }))

  it.effect("a redirect to loopback, when only the first host is allowed: refused, never fetched", () =>
    Effect.gen(function* () {
      hits.delete("/photo.jpg")
      expect(yield* describeUrl(at("/to-loopback"))).toEqual({ answer: refused, balance: 2 })
      expect(yield* describeUrl(at("/to-file"))).toEqual({ answer: refused, balance: 2 })
      expect(hits.get("/photo.jpg")).toBeUndefined()
    }))

  it.effect("names resolving to addresses that are not public, and such addresses written out: refused, never fetched", () =>
    Effect.gen(function* () {
      hits.delete("/photo.jpg")
      const urls = [
        ...["private.test", "loopback.test", "mapped.test", "metadata.test", "ula.test", "mixed.test"].map((host) => `http://${host}:${port}/photo.jpg`),
        `http://127.0.0.1:${port}/photo.jpg`,
        `http://[::1]:${port}/photo.jpg`,
        `http://[::ffff:127.0.0.1]:${port}/photo.jpg`,
        "http://169.254.169.254/latest/meta-data/",
        "http://0.0.0.0/photo.jpg"
      ]
      for (const url of urls) expect([url, yield* describeUrl(url)]).toEqual([url, { answer: refused, balance: 2 }])
      expect(hits.get("/photo.jpg")).toBeUndefined()
    }))

  it.effect("schemes other than http and https, and text that is not a URL: refused", () =>
    Effect.gen(function* () {
      for (const url of ["file:///etc/passwd", `ftp://images.test:${port}/photo.jpg`, "data:image/jpeg;base64,/9j/4AAQ", "gopher://images.test/", "photo.jpg"]) {
        expect([url, yield* describeUrl(url)]).toEqual([url, { answer: refused, balance: 2 }])
      }
    }))

  it.effect("a name that does not resolve: 400, uncharged", () =>
    Effect.gen(function* () {
      expect(yield* describeUrl("http://unknown.test/photo.jpg")).toEqual({ answer: fetchFailed("its host name did not resolve"), balance: 2 })
    }))

  it.effect("neither a file nor a URL: no file uploaded, as before", () =>
    Effect.gen(function* () {
      const c = yield* customer(2)
      expect(yield* postDescribe({ language: "fr" }, c.token)).toEqual(error(400, "Bad Request, No file uploaded"))
      expect(yield* c.balance).toBe(2)
    }))
})
