/**
 * Reliability: slow clients (README, Operations: Slow clients). Many connections trickle their bytes (one every 200 ms,
 * plain or chunked), stall half-way, or send no body at all, against a service process with a
 * short upload deadline (`UPLOAD_TIMEOUT_MS`, README). Each is answered `500 Internal Server Error`
 * (retryable: the form may be valid, on a slow link) with the connection closed, uncharged, while
 * normal requests keep being served meanwhile.
 */
import { expect, layer } from "@effect/vitest"
import { Array as Arr, Context, Effect, Either, Fiber, Layer, Schedule } from "effect"
import { customer, jpeg } from "../support/describe.ts"
import { bookOf, type Customer, describeAt, inStore, pgliteStore, type Store } from "../support/liveService.ts"
import { multipartBody, multipartContentType } from "../support/multipartBody.ts"
import { type Service, startService } from "../support/process.ts"
import { idleTimeoutSeconds } from "../../src/http/connections.ts"
import { type RawRequest, requestHead, sendRaw } from "../support/rawHttp.ts"

/**
 * Short for a deadline, long next to a normal request: the normal requests below are all answered
 * well within it, even on a loaded machine, while every slow connection is still held.
 */
const uploadTimeoutMs = 8000
const perKind = 25
const normalRequests = 5
const body = multipartBody("b", [{ name: "image", filename: "a.jpg", data: jpeg }])

/** One byte at a time. */
function* bytewise(bytes: Uint8Array) {
  for (const byte of bytes) yield Uint8Array.of(byte)
}

const slowUploads = (port: number, token: string): ReadonlyArray<{ readonly kind: string; readonly request: RawRequest }> => {
  const headers = { authorization: `Bearer ${token}`, "content-type": multipartContentType("b") }
  const sized = requestHead("POST", "/api/describe", { ...headers, "content-length": String(body.length) })
  const chunked = requestHead("POST", "/api/describe", { ...headers, "transfer-encoding": "chunked" })
  // Well past the deadline, so a connection that is answered was cut off, not finished.
  const timeoutMs = 3 * uploadTimeoutMs
  // Factories: each connection needs its own iterator over the body.
  const kinds: ReadonlyArray<readonly [string, () => RawRequest]> = [
    ["trickling", () => ({ port, head: sized, body: bytewise(body), pauseMs: 200, timeoutMs })],
    ["trickling chunks", () => ({ port, head: chunked, body: bytewise(body), chunked: true, pauseMs: 200, timeoutMs })],
    ["stalled half-way", () => ({ port, head: sized, body: [body.slice(0, body.length / 2)], timeoutMs })],
    ["head only", () => ({ port, head: sized, body: [], timeoutMs })]
  ]
  return kinds.flatMap(([kind, request]) => Arr.makeBy(perKind, () => ({ kind, request: request() })))
}

/** One service for the file, with an account for the slow clients and one for the normal ones. */
class Lab extends Context.Tag("test/SlowClientsLab")<Lab, {
  readonly store: Store
  readonly service: Service
  readonly slow: Customer
  readonly normal: Customer
}>() {}

const lab = Layer.scoped(
  Lab,
  Effect.gen(function* () {
    const store = yield* pgliteStore
    const [slow, normal] = yield* inStore(store)(Effect.all([customer(200), customer(20)]))
    const service = yield* startService({ ...store.env, UPLOAD_TIMEOUT_MS: String(uploadTimeoutMs) })
    return { store, service, slow, normal }
  })
)

layer(lab, { timeout: 60_000, excludeTestServices: true })("slow clients", (it) => {
  // The upload deadline starts once the request head is in; a head that never ends is Bun's to cut
  // off, and Bun resets its idle timer on every byte: a client sending a few bytes a second holds a
  // connection for as long as it likes.
  // Skipped: Bun has no request-head timeout (README, Known limitations); a proxy in front covers it.
  it.effect.skip("a client trickling its request head is cut off too", () =>
    Effect.gen(function* () {
      const { service } = yield* Lab
      const head = requestHead("POST", "/api/describe", { "x-padding": "a".repeat(200), "content-length": "0" })
      const trickled = yield* Effect.either(sendRaw({
        port: Number(new URL(service.url).port),
        head: "",
        body: bytewise(new TextEncoder().encode(head)),
        pauseMs: 200,
        // As late as a slow upload is answered, and some.
        timeoutMs: uploadTimeoutMs + 2000
      }))
      expect(Either.isLeft(trickled) ? trickled.left.reason : "answered").not.toMatch(/^no complete response/)
    }), 60_000)

  // Last: it stops the service to read the books.
  it.effect(`${4 * perKind} trickling or stalled uploads are cut off by UPLOAD_TIMEOUT_MS while normal requests are served`, () =>
    Effect.gen(function* () {
      const { normal, service, slow, store } = yield* Lab
      const port = Number(new URL(service.url).port)

      const slowOnes = slowUploads(port, slow.token)
      const uploads = yield* Effect.forEach(slowOnes, ({ request }) => Effect.fork(sendRaw(request)))
      const stillOpen = Effect.map(Effect.forEach(uploads, Fiber.poll), (polls) => polls.filter((p) => p._tag === "None").length)

      // Normal requests, one after the other, answered while the slow ones hold their connections.
      const served: Array<{ readonly status: number; readonly slowStillOpen: number }> = []
      for (let i = 0; i < normalRequests; i++) {
        const answer = yield* describeAt(service.url, normal.token, { image: jpeg })
        served.push({ status: answer.status, slowStillOpen: yield* stillOpen })
      }
      expect(served.filter((s) => s.status !== 200 || s.slowStillOpen !== uploads.length)).toEqual([])

      const answers = yield* Effect.forEach(uploads, (upload) => Effect.either(Fiber.join(upload)))
      const cutOff = '500 {"error":"Internal Server Error"} connection: close'
      const wrong = answers.flatMap((answer, i) => {
        const kind = slowOnes[i]?.kind ?? ""
        const seen = Either.match(answer, {
          onLeft: (error) => error.reason,
          onRight: (response) => `${response.status} ${response.body} connection: ${response.headers["connection"]}`
        })
        // A client still sending when the server closes may get a reset before it reads the 500
        // (TCP discards what it had not read): cut off all the same.
        const reset = kind.startsWith("trickling") && seen === "connection closed before a complete response"
        return seen === cutOff || reset ? [] : [`${kind}: ${seen}`]
      })
      expect(wrong.slice(0, 10)).toEqual([])
      expect(yield* service.running).toBe(true)

      expect((yield* service.stop("SIGTERM")).exitCode).toBe(0)
      const books = yield* inStore(store)(Effect.all([bookOf(slow.accountId), bookOf(normal.accountId)]))
      expect(books).toEqual([
        { credits: 200, reserved: 0, granted: 200, charges: 0, chargedFailures: 0, usage: { "released 500": uploads.length } },
        {
          credits: 20 - normalRequests,
          reserved: 0,
          granted: 20,
          charges: normalRequests,
          chargedFailures: 0,
          usage: { "charged 200": normalRequests }
        }
      ])
    }), 60_000)
})

/**
 * More slow clients than the service has file descriptors: on a machine whose limit is low, what
 * made `/healthz` unreachable for as long as they kept trickling. Each is cut off by a deadline
 * (a form's FORM_TIMEOUT_MS, the idle timeout) or answered at once (a body nobody reads), so the
 * descriptors come back while they are still trying. (Before these deadlines, about half of them
 * were still held when the test gave up.)
 */
const openFiles = 256
const slowClients = 300
const formTimeoutMs = 3000

const limited = Layer.scoped(
  Lab,
  Effect.gen(function* () {
    const store = yield* pgliteStore
    const [slow, normal] = yield* inStore(store)(Effect.all([customer(1), customer(1)]))
    const service = yield* startService({ ...store.env, FORM_TIMEOUT_MS: String(formTimeoutMs) }, "127.0.0.1", openFiles)
    return { store, service, slow, normal }
  })
)

layer(limited, { timeout: 120_000, excludeTestServices: true })(`slow clients beyond ${openFiles} file descriptors`, (it) => {
  it.effect(`${slowClients} clients trickling forms, trickling bodies nobody reads or idling: all are let go by their deadlines and /healthz answers`, () =>
    Effect.gen(function* () {
      const { service } = yield* Lab
      const port = Number(new URL(service.url).port)
      // Well past every deadline: a client still held then is one the service did not let go.
      const timeoutMs = 40_000
      const form = "email=owner%40example.com&password=" + "x".repeat(200)
      const kinds: ReadonlyArray<() => RawRequest> = [
        () => ({
          port,
          head: requestHead("POST", "/dashboard/login", { "content-type": "application/x-www-form-urlencoded", "content-length": String(form.length) }),
          body: bytewise(new TextEncoder().encode(form)),
          pauseMs: 1000,
          awaitClose: true,
          timeoutMs
        }),
        () => ({ port, head: requestHead("GET", "/healthz", { "content-length": "16000" }), body: bytewise(new Uint8Array(200)), pauseMs: 1000, awaitClose: true, timeoutMs }),
        () => ({ port, head: requestHead("GET", "/healthz"), awaitClose: true, timeoutMs })
      ]
      const clients = yield* Effect.forEach(Arr.makeBy(slowClients, (i) => kinds[i % kinds.length]!()), (request) => Effect.fork(Effect.either(sendRaw(request))))
      const started = Date.now()
      const healthy = yield* Effect.tryPromise(() => fetch(`${service.url}/healthz`, { signal: AbortSignal.timeout(1000) })).pipe(
        Effect.filterOrFail((response) => response.status === 200),
        Effect.retry(Schedule.spaced("250 millis")),
        Effect.timeout("30 seconds"),
        Effect.either
      )
      const answeredAfterMs = Date.now() - started
      const ended = yield* Effect.forEach(clients, Fiber.join)
      const held = ended.filter((end) => Either.isRight(end) && end.right.closedAfterMs === undefined).length
      expect({ healthz: Either.isRight(healthy), held }).toEqual({ healthz: true, held: 0 })
      // The idle ones go last: their timeout, twice (the backlog waits its turn), and some.
      expect(answeredAfterMs).toBeLessThan(2 * (idleTimeoutSeconds * 1000 + 6000))
      expect(yield* service.running).toBe(true)
    }), 60_000)
})
