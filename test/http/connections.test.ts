/**
 * How long a client may hold a connection (src/http/connections.ts, README "Slow clients"): an
 * idle kept-alive connection is closed after the idle timeout, yet a describe waiting on a model
 * slower than that gets its answer (with a 40 s model: test/http/describe.test.ts); a dashboard
 * form has a deadline and a size bound; a body no route reads is not waited for. Raw sockets, so
 * the test sees when the server closes.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Logger, LogLevel } from "effect"
import { execFile } from "node:child_process"
import * as net from "node:net"
import { dropLimits, idleTimeoutSeconds } from "../../src/http/connections.ts"
import { maxFormBytes } from "../../src/domain/dashboard.ts"
import { Describer } from "../../src/services/Describer.ts"
import { pgliteWith } from "../support/database.ts"
import { customer, jpeg, serverPort } from "../support/describe.ts"
import { multipartBody, multipartContentType } from "../support/multipartBody.ts"
import { startService, tempDataDir } from "../support/process.ts"
import { realNode } from "../support/realNode.ts"
import { type RawResponse, requestHead, sendRaw } from "../support/rawHttp.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const formTimeoutMs = 2000
const idleMs = idleTimeoutSeconds * 1000
/** Bun checks its idle timers every few seconds: a connection goes up to this long after its time. */
const idleSlackMs = 6000
/** Longer than the idle timeout, and then some. */
const modelMs = idleMs + idleSlackMs

const slowModel = Describer.scripted((request) =>
  Effect.sleep(Duration.millis(modelMs)).pipe(
    Effect.as(Object.fromEntries(request.fields.map((field) => [field.name, `${field.name} value`])))
  )
)

const app = serverWith(servicesOn(pgliteWith({ FORM_TIMEOUT_MS: String(formTimeoutMs) }), slowModel)).pipe(
  Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
)

/** One byte at a time. */
function* bytewise(text: string) {
  for (const byte of new TextEncoder().encode(text)) yield Uint8Array.of(byte)
}

const formHead = (headers: Readonly<Record<string, string>>) =>
  requestHead("POST", "/dashboard/login", { "content-type": "application/x-www-form-urlencoded", ...headers })

const closedSoon = (response: RawResponse) => {
  expect(response.headers["connection"]).toBe("close")
  expect(response.closedAfterMs).toBeLessThan(2000)
}

layer(app, { excludeTestServices: true, timeout: 120_000 })("connections", (it) => {
  it.effect(`a kept-alive connection left idle is closed after ${idleTimeoutSeconds} s`, () =>
    Effect.gen(function* () {
      const port = yield* serverPort
      const response = yield* sendRaw({ port, head: requestHead("GET", "/healthz"), awaitClose: true, timeoutMs: idleMs + 3 * idleSlackMs })
      expect(response.status).toBe(200)
      // uSockets checks its timers every 4 s, so a connection goes between 8 and 12 s idle.
      expect(response.closedAfterMs).toBeGreaterThan(idleMs - 4000)
      expect(response.closedAfterMs).toBeLessThan(idleMs + idleSlackMs)
    }), 60_000)

  it.effect(`a describe waiting ${modelMs / 1000} s on the model is answered; then its connection idles out as any other (the timer is put back)`, () =>
    Effect.gen(function* () {
      const port = yield* serverPort
      const { token } = yield* customer(1)
      const body = multipartBody("b", [{ name: "image", filename: "a.jpg", data: jpeg }])
      const head = requestHead("POST", "/api/describe", {
        authorization: `Bearer ${token}`,
        "content-type": multipartContentType("b"),
        "transfer-encoding": "chunked"
      })
      const response = yield* sendRaw({ port, head, body: [body], chunked: true, awaitClose: true, timeoutMs: modelMs + idleMs + 3 * idleSlackMs })
      expect([response.status, response.body]).toEqual([200, '{"title":"title value","alternativeText":"alternativeText value","caption":"caption value","alt_text":"alternativeText value"}'])
      // uSockets checks its timers every 4 s, so a connection goes between 8 and 12 s idle.
      expect(response.closedAfterMs).toBeGreaterThan(idleMs - 4000)
      expect(response.closedAfterMs).toBeLessThan(idleMs + idleSlackMs)
    }), 90_000)

  it.effect(`a dashboard form trickling past ${formTimeoutMs / 1000} s is cut off: 400, and the connection is closed`, () =>
    Effect.gen(function* () {
      const port = yield* serverPort
      const form = "email=owner%40example.com&password=correct+horse+battery+staple"
      const response = yield* sendRaw({
        port,
        head: formHead({ "content-length": String(form.length) }),
        body: bytewise(form),
        pauseMs: 200,
        awaitClose: true,
        timeoutMs: 4 * formTimeoutMs
      })
      expect(response.status).toBe(400)
      expect(response.body).toContain("This form took too long to arrive")
      closedSoon(response)
    }))

  it.effect(`a dashboard form over ${maxFormBytes / 1024} KiB is refused, announced or not: 413, and the connection is closed`, () =>
    Effect.gen(function* () {
      const port = yield* serverPort
      const big = "a=" + "x".repeat(maxFormBytes)
      const announced = yield* sendRaw({ port, head: formHead({ "content-length": String(big.length) }), awaitClose: true })
      const chunked = yield* sendRaw({
        port,
        head: formHead({ "transfer-encoding": "chunked" }),
        body: [big.slice(0, 8000), big.slice(8000)],
        chunked: true,
        awaitClose: true
      })
      for (const response of [announced, chunked]) {
        expect(response.status).toBe(413)
        expect(response.body).toContain("This form is too large")
        closedSoon(response)
      }
    }))

  it.effect(`a body no route reads, up to ${dropLimits.large.maxBytes / 1024} KiB sent whole, is read and dropped: the answer keeps the connection for the next request`, () =>
    Effect.gen(function* () {
      const port = yield* serverPort
      const body = multipartBody("b", [{ name: "image", filename: "a.jpg", data: new Uint8Array(dropLimits.large.maxBytes - 1024).fill(0x61) }])
      // As Node's fetch sends it: the whole body behind the head, whatever the answer; then a second request.
      const answers = yield* Effect.promise(() => new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1", () => {
          socket.write(requestHead("POST", "/api/describe", {
            authorization: "Bearer wrong",
            "content-type": multipartContentType("b"),
            "content-length": String(body.length)
          }))
          socket.write(body)
          socket.write(requestHead("GET", "/healthz"))
        })
        let text = ""
        socket.on("data", (chunk) => {
          text += chunk.toString("latin1")
          if (text.split("HTTP/1.1 ").length === 3 && text.endsWith("}")) socket.end()
        })
        socket.on("close", () => resolve(text))
        socket.on("error", reject)
        setTimeout(() => socket.destroy(), 10_000)
      }))
      const statuses = answers.match(/HTTP\/1\.1 \d{3} [A-Za-z ]+/g)
      expect(statuses).toEqual(["HTTP/1.1 401 Unauthorized", "HTTP/1.1 200 OK"])
      expect(answers).toContain('{"error":"Unauthorized, invalid token"}')
      expect(answers.toLowerCase()).not.toContain("connection: close")
    }))

  it.effect(`a large unread body is dropped only while the drops in progress leave room (${dropLimits.largeBudgetBytes / 1024 / 1024} MiB): past it, not read, the connection closed; a small one still dropped`, () =>
    Effect.gen(function* () {
      const port = yield* serverPort
      const unauthorized = (length: number, sent: number) => ({
        port,
        head: requestHead("POST", "/api/describe", { authorization: "Bearer wrong", "content-type": multipartContentType("b"), "content-length": String(length) }),
        body: [new Uint8Array(sent).fill(0x61)],
        timeoutMs: 20_000
      })
      // Two large bodies announced whole and sent in part: their drops hold most of the room until their deadline.
      const holders = yield* Effect.forEach([1, 2], () => Effect.fork(sendRaw(unauthorized(11_000_000, 1_000_000))))
      yield* Effect.sleep("500 millis")
      const large = yield* sendRaw(unauthorized(4_000_000, 4_000_000))
      const small = yield* sendRaw(unauthorized(1000, 1000))
      const held = yield* Effect.forEach(holders, Fiber.join)
      expect([large.status, large.headers["connection"]]).toEqual([401, "close"])
      expect([small.status, small.headers["connection"]]).toEqual([401, undefined])
      expect(held.map((response) => [response.status, response.headers["connection"]])).toEqual([[401, "close"], [401, "close"]])
    }).pipe(Effect.orDie), 30_000)

  it.effect(`a body streamed past ${dropLimits.large.maxBytes / 1024 / 1024} MiB with a bad key is read on while it keeps coming: the 401, then a close with nothing unread`, () =>
    Effect.gen(function* () {
      const port = yield* serverPort
      // 11 MiB at once, then eight pieces of 64 KiB a moment apart, then nothing: a client that
      // stalls just past the limit.
      const pieces = [
        ...Array.from({ length: dropLimits.large.maxBytes / 1024 ** 2 }, () => new Uint8Array(1024 ** 2).fill(0x61)),
        ...Array.from({ length: 8 }, () => new Uint8Array(64 * 1024).fill(0x61))
      ]
      const response = yield* sendRaw({
        port,
        head: requestHead("POST", "/api/describe", { authorization: "Bearer wrong", "content-type": multipartContentType("b"), "transfer-encoding": "chunked" }),
        body: pieces,
        chunked: true,
        finish: false,
        pauseMs: 30,
        awaitClose: true,
        timeoutMs: 20_000
      })
      expect([response.status, response.body, response.headers["connection"]]).toEqual([401, '{"error":"Unauthorized, invalid token"}', "close"])
      // The answer came once every piece had been sent (and read), not at the first past the limit.
      expect(response.bytesWritten).toBe(pieces.reduce((sum, piece) => sum + piece.length, 0))
      expect(response.closedAfterMs).toBeLessThan(2000)
    }))

  it.effect("two large bodies streamed at once with a bad key are both read and dropped: the connections kept", () =>
    Effect.gen(function* () {
      const port = yield* serverPort
      const streamed = () => sendRaw({
        port,
        head: requestHead("POST", "/api/describe", { authorization: "Bearer wrong", "content-type": multipartContentType("b"), "transfer-encoding": "chunked" }),
        body: Array.from({ length: 3 }, () => new Uint8Array(1024 ** 2).fill(0x61)),
        chunked: true,
        pauseMs: 100,
        timeoutMs: 20_000
      })
      const answers = yield* Effect.all([streamed(), streamed()], { concurrency: "unbounded" })
      expect(answers.map((a) => [a.status, a.headers["connection"], a.bytesWritten])).toEqual([[401, undefined, 3 * 1024 ** 2], [401, undefined, 3 * 1024 ** 2]])
    }).pipe(Effect.orDie))

  it.effect(`a small body no route reads is not waited for past ${Duration.toSeconds(dropLimits.small.timeout)} s: the answer closes the connection`, () =>
    Effect.gen(function* () {
      const port = yield* serverPort
      const response = yield* sendRaw({
        port,
        head: requestHead("GET", "/healthz", { "content-length": "1000" }),
        body: bytewise("a".repeat(50)),
        pauseMs: 200,
        awaitClose: true,
        timeoutMs: 15_000
      })
      expect(response.status).toBe(200)
      closedSoon(response)
    }))
})

describe.skipIf(realNode === undefined)("connections from Node.js's fetch (needs Node.js on the PATH)", () => {
  it.scopedLive("Node's fetch, which writes the whole body before it reads the answer, gets the 401 of an upload up to 11 MB, not EPIPE", () =>
    Effect.gen(function* () {
      const service = yield* startService({ DATA_DIR: yield* tempDataDir })
      const script = `
        const answers = []
        for (const size of [2_000_000, 2_000_000, 10_000_000, 10_000_000]) {
          const form = new FormData()
          form.append("image", new Blob([new Uint8Array(size).fill(97)]), "photo.jpg")
          try {
            const response = await fetch("${service.url}/api/describe", { method: "POST", headers: { authorization: "Bearer wrong" }, body: form })
            answers.push([response.status, await response.text()])
          } catch (error) {
            answers.push(["threw", String(error.cause?.code ?? error.message)])
          }
        }
        console.log(JSON.stringify(answers))`
      const printed = yield* Effect.promise(() => new Promise<string>((resolve, reject) =>
        execFile(realNode ?? "node", ["--input-type=module", "-e", script], { timeout: 60_000 }, (error, stdout) => error ? reject(error) : resolve(stdout))))
      const refused = [401, JSON.stringify({ error: "Unauthorized, invalid token" })]
      expect(JSON.parse(printed)).toEqual([refused, refused, refused, refused])
    }), 90_000)
})
