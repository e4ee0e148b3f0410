/**
 * The server on `Bun.serve` (src/http/bunServer.ts), on a real socket: requests that arrive together
 * start a few per turn of the event loop, the health probes are not held, a client that goes away
 * interrupts its request, each request is seen as the platform's server showed it (path and
 * query, peer address, HEAD without a body), what arrives before the routes waits for them, every
 * request taken counts as unanswered until it is answered (what a shutdown waits for), and once
 * the routes are withdrawn what still waits in line is answered 503, no connection is taken, and
 * idle ones are closed.
 */
import { expect, layer } from "@effect/vitest"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Deferred, Effect, Exit, Layer, Logger, Option, Schedule, Scope } from "effect"
import * as net from "node:net"
import * as BunServer from "../../src/http/bunServer.ts"
import { serveOptions } from "../../src/http/server.ts"
import { requestsPerTurn } from "../../src/http/turnstile.ts"

/** Turns of the event loop, counted from the test's start: one per turn while the test runs. */
const turns = { count: 0, running: true }
const countTurns = () => {
  turns.count++
  if (turns.running) setImmediate(countTurns)
}

/** The turn in which each `/work` request's fiber began. */
const startedIn: Array<number> = []
const interrupted = Effect.runSync(Deferred.make<void>())
/** How many `/busy` requests have begun. */
const busy = { begun: 0 }

const app = HttpRouter.empty.pipe(
  HttpRouter.get("/work", Effect.sync(() => startedIn.push(turns.count)).pipe(Effect.as(HttpServerResponse.text("done")))),
  // How many `/work` requests had begun when the probe was answered.
  HttpRouter.get("/healthz", Effect.sync(() => HttpServerResponse.text(`alive after ${startedIn.length}`))),
  HttpRouter.get("/seen", Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
    HttpServerResponse.unsafeJson({ url: request.url, method: request.method, peer: Option.getOrNull(request.remoteAddress) }))),
  HttpRouter.get("/hang", Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)))),
  // Work that holds the thread, as a describe's first steps do: a turn lasts while it runs.
  HttpRouter.get("/busy", Effect.sync(() => {
    busy.begun++
    const until = performance.now() + 5
    while (performance.now() < until) { /* the thread is held */ }
    return HttpServerResponse.text("done")
  }))
)

const server = HttpServer.serve(app).pipe(
  Layer.provideMerge(BunServer.layer({ port: 0, hostname: "127.0.0.1", ...serveOptions }))
)

const urlOf = Effect.map(HttpServer.HttpServer, (s) => s.address._tag === "TcpAddress" ? `http://127.0.0.1:${s.address.port}` : "")

/** Polls, a turn of the event loop at a time, until `done` holds. */
const until = (done: Effect.Effect<boolean>) =>
  Effect.repeat(done, { until: (met) => met, schedule: Schedule.spaced("1 millis") }).pipe(
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => "never" })
  )

/** A request for `path` whose client goes away once `taken` is done (the server has it). */
const goneAfter = <E>(url: string, path: string, taken: Effect.Effect<unknown, E>) =>
  Effect.gen(function* () {
    const controller = new AbortController()
    const request = fetch(`${url}${path}`, { signal: controller.signal }).catch(() => "aborted")
    yield* taken
    controller.abort()
    expect(yield* Effect.promise(() => request)).toBe("aborted")
  })

/** `count` requests for `path`, each settled as `<status> <Connection header> <body>` or as the error that ended it. */
const burst = (url: string, path: string, count: number) => {
  let received = 0
  const answers = Promise.all(Array.from({ length: count }, () =>
    fetch(`${url}${path}`).then(
      async (r) => `${r.status} ${r.headers.get("connection")} ${await r.text()}`,
      (error: unknown) => `failed: ${String(error)}`
    ).finally(() => received++)))
  return { answers, received: () => received }
}

layer(server, { excludeTestServices: true })("bunServer", (it) => {
  it.effect("requests that arrive together start at most a few per turn of the event loop, and are all answered", () =>
    Effect.gen(function* () {
      const url = yield* urlOf
      startedIn.length = 0
      countTurns()
      const answers = yield* Effect.promise(() =>
        Promise.all(Array.from({ length: 200 }, () => fetch(`${url}/work`, { keepalive: false }).then(async (r) => `${r.status} ${await r.text()}`))))
      turns.running = false
      expect(new Set(answers)).toStrictEqual(new Set(["200 done"]))
      const perTurn = new Map<number, number>()
      for (const turn of startedIn) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1)
      expect(startedIn).toHaveLength(200)
      expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(requestsPerTurn)
    }))

  it.effect("a health probe is answered ahead of the requests waiting in line", () =>
    Effect.gen(function* () {
      const url = yield* urlOf
      startedIn.length = 0
      // Sent with the 400 before it, it is read while most of them wait: they take 50 turns to begin.
      const work = Array.from({ length: 400 }, () => fetch(`${url}/work`).then((r) => r.text()))
      const probe = yield* Effect.promise(() => fetch(`${url}/healthz`).then(async (r) => ({ status: r.status, body: await r.text() })))
      yield* Effect.promise(() => Promise.all(work))
      expect(probe.status).toBe(200)
      const begun = Number(probe.body.replace("alive after ", ""))
      expect(begun).toBeLessThan(400)
    }))

  it.effect("the app sees the path and query, the method and the client's address; HEAD gets the headers only", () =>
    Effect.gen(function* () {
      const url = yield* urlOf
      const seen = yield* Effect.promise(() => fetch(`${url}/seen?size=2`).then((r) => r.json()))
      expect(seen).toStrictEqual({ url: "/seen?size=2", method: "GET", peer: "127.0.0.1" })
      const head = yield* Effect.promise(() => fetch(`${url}/seen`, { method: "HEAD" }).then(async (r) => ({ status: r.status, type: r.headers.get("content-type"), body: await r.text() })))
      expect(head).toStrictEqual({ status: 200, type: "application/json", body: "" })
    }))

  it.effect("a request counts as unanswered from when it is taken, waiting in line or running, until it is answered or its client goes away", () =>
    Effect.gen(function* () {
      const url = yield* urlOf
      const unanswered = yield* BunServer.Unanswered
      const requests = burst(url, "/busy", 200)
      // The most seen at once: with at most a few running per turn, the rest are those in line.
      let most = 0
      yield* until(Effect.map(unanswered, (n) => {
        most = Math.max(most, n)
        return requests.received() === 200
      }))
      expect(new Set(yield* Effect.promise(() => requests.answers))).toStrictEqual(new Set(["200 null done"]))
      expect(most).toBeGreaterThan(10 * requestsPerTurn)
      yield* until(Effect.map(unanswered, (n) => n === 0))

      yield* goneAfter(url, "/hang", until(Effect.map(unanswered, (n) => n === 1)))
      yield* until(Effect.map(unanswered, (n) => n === 0))
    }))

  it.effect("a client that goes away interrupts its request", () =>
    Effect.gen(function* () {
      const url = yield* urlOf
      yield* goneAfter(url, "/hang", Effect.sleep("200 millis"))
      yield* Deferred.await(interrupted).pipe(Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => "never interrupted" }))
    }))
})

layer(BunServer.layer({ port: 0, hostname: "127.0.0.1", ...serveOptions }), { excludeTestServices: true })("bunServer, as it starts", (it) => {
  it.effect("a request that arrives once the port is open, before the routes are installed, waits for them; one whose client left meanwhile is not run", () =>
    Effect.gen(function* () {
      const url = yield* urlOf
      const unanswered = yield* BunServer.Unanswered
      startedIn.length = 0
      const early = fetch(`${url}/work`).then(async (r) => `${r.status} ${await r.text()}`)
      yield* goneAfter(url, "/work", until(Effect.map(unanswered, (n) => n === 2)))
      // The server has seen the client go.
      yield* until(Effect.map(unanswered, (n) => n === 1))
      yield* HttpServer.serveEffect(app)
      expect(yield* Effect.promise(() => early)).toBe("200 done")
      yield* Effect.sleep("100 millis")
      expect(startedIn).toHaveLength(1)
      expect(yield* unanswered).toBe(0)
    }).pipe(Effect.scoped))
})

layer(BunServer.layer({ port: 0, hostname: "127.0.0.1", ...serveOptions }), { excludeTestServices: true })("bunServer, as it shuts down", (it) => {
  it.effect("once the routes are withdrawn, the requests still in line are answered 503 and closed, no connection is taken, and idle ones are closed", () =>
    Effect.gen(function* () {
      const url = yield* urlOf
      const unanswered = yield* BunServer.Unanswered
      const serving = yield* Scope.make()
      // The release logs with the serving's logger.
      const logged: Array<{ readonly level: string; readonly message: unknown; readonly annotations: unknown }> = []
      yield* HttpServer.serveEffect(app).pipe(
        Scope.extend(serving),
        Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ annotations, logLevel, message }) =>
          logged.push({ level: logLevel.label, message, annotations: Object.fromEntries(annotations) }))))
      )
      // A connection kept alive after its answer, idle when the routes are withdrawn.
      const idle = net.connect(Number(new URL(url).port), "127.0.0.1")
      const idleClosed = new Promise<void>((resolve) => idle.on("close", () => resolve()))
      const firstAnswer = new Promise<string>((resolve) => idle.once("data", (data) => resolve(data.toString().split("\r\n")[0] ?? "")))
      idle.write("GET /work HTTP/1.1\r\nHost: test\r\n\r\n")
      expect(yield* Effect.promise(() => firstAnswer)).toBe("HTTP/1.1 200 OK")
      busy.begun = 0
      const requests = burst(url, "/busy", 200)
      // Every request taken: begun (answered within its turn), or counted as unanswered; most still in line.
      yield* until(Effect.map(unanswered, (n) => n + busy.begun >= 200))
      yield* Scope.close(serving, Exit.void)
      const answers = yield* Effect.promise(() => requests.answers)
      const unavailable = `503 close ${JSON.stringify({ error: "Service Unavailable" })}`
      expect(answers.filter((answer) => answer !== "200 null done" && answer !== unavailable)).toStrictEqual([])
      const turnedAway = answers.filter((answer) => answer === unavailable).length
      expect(turnedAway).toBeGreaterThan(0)
      // The 503s have no request log line: one line counts them.
      expect(logged).toStrictEqual([{
        level: "WARN",
        message: ["requests still waiting in line were answered 503 as the routes were withdrawn"],
        annotations: { answered503: turnedAway }
      }])
      expect(yield* unanswered).toBe(0)
      const later = yield* Effect.promise(() => fetch(`${url}/busy`, { keepalive: false }).then((r) => r.status, (error: { code?: string }) => error.code))
      expect(later).toBe("ECONNREFUSED")
      yield* Effect.promise(() => idleClosed).pipe(Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => "the idle connection stayed open" }))
    }))
})
