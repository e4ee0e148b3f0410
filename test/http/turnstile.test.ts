import { describe, expect, it } from "@effect/vitest"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Fiber, Ref } from "effect"
import { awaitTurn, inTurn } from "../../src/http/turnstile.ts"

/** One turn of the event loop: what the turnstile lets through between two of them. */
const loopTurn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

const requestFor = (url: string) => HttpServerRequest.fromWeb(new Request(`http://localhost${url}`))

describe("turnstile", () => {
  it.effect("requests that arrive together go a few per turn of the event loop, in the order they came", () =>
    Effect.gen(function* () {
      const through = yield* Ref.make<ReadonlyArray<number>>([])
      const fibers = yield* Effect.forEach(Array.from({ length: 20 }, (_, i) => i), (i) =>
        Effect.fork(Effect.zipRight(awaitTurn, Ref.update(through, (seen) => [...seen, i]))))
      yield* Effect.yieldNow()
      expect(yield* Ref.get(through)).toStrictEqual([])
      yield* loopTurn
      yield* Effect.yieldNow()
      expect(yield* Ref.get(through)).toStrictEqual([0, 1, 2, 3, 4, 5, 6, 7])
      yield* Fiber.joinAll(fibers)
      expect(yield* Ref.get(through)).toStrictEqual(Array.from({ length: 20 }, (_, i) => i))
    }))

  it.effect("a request that goes away while waiting leaves the line", () =>
    Effect.gen(function* () {
      const through = yield* Ref.make(0)
      const fibers = yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => i), () =>
        Effect.fork(Effect.zipRight(awaitTurn, Ref.update(through, (n) => n + 1))))
      yield* Effect.yieldNow()
      yield* Fiber.interruptAll(fibers.slice(0, 10))
      yield* Fiber.joinAll(fibers.slice(10))
      expect(yield* Ref.get(through)).toBe(2)
    }))

  it.effect("health probes are never held; every other request waits its turn", () =>
    Effect.gen(function* () {
      const app = inTurn(Effect.succeed(HttpServerResponse.text("ok")))
      const waiting = yield* Effect.forEach(Array.from({ length: 40 }, (_, i) => i), () =>
        Effect.fork(Effect.provideService(app, HttpServerRequest.HttpServerRequest, requestFor("/api/describe"))))
      yield* Effect.yieldNow()
      // Answered at once, ahead of the 40 requests in line.
      for (const url of ["/healthz", "/readyz"]) {
        const probe = yield* Effect.fork(Effect.provideService(app, HttpServerRequest.HttpServerRequest, requestFor(url)))
        yield* Effect.yieldNow()
        expect(probe.unsafePoll()?._tag).toBe("Success")
      }
      expect(waiting.filter((fiber) => fiber.unsafePoll() !== null)).toHaveLength(0)
      yield* Fiber.joinAll(waiting)
    }))
})
