/**
 * `oneAtATime` (src/services/HostResolver.ts): look-ups go one at a time, and a look-up whose caller
 * gave up keeps the turn until it has itself ended, as the thread it runs on stays taken.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { type HostResolverShape, oneAtATime } from "../../src/services/HostResolver.ts"

describe("oneAtATime", () => {
  it.effect("runs one look-up at a time; one given up on keeps its turn until it ends", () =>
    Effect.gen(function* () {
      const started: Array<string> = []
      const answer = yield* Deferred.make<void>()
      const slow: HostResolverShape = {
        resolve: (host) =>
          Effect.sync(() => started.push(host)).pipe(
            Effect.zipRight(host === "hangs.test" ? Deferred.await(answer) : Effect.void),
            Effect.as([{ address: "192.0.2.1", family: 4 as const }])
          )
      }
      const resolver = oneAtATime(slow)
      const first = yield* Effect.fork(resolver.resolve("hangs.test"))
      yield* Effect.yieldNow()
      const second = yield* Effect.fork(resolver.resolve("fine.test"))
      yield* Effect.yieldNow()
      expect(started).toEqual(["hangs.test"])
      // Its caller gives up (a time-out): the look-up still runs, and still has the turn.
      yield* Fiber.interrupt(first)
      // Time enough for the second to start, were the turn free.
      yield* Effect.repeatN(Effect.yieldNow(), 20)
      expect(started).toEqual(["hangs.test"])
      yield* Deferred.succeed(answer, undefined)
      expect(yield* Fiber.join(second)).toEqual([{ address: "192.0.2.1", family: 4 }])
      expect(started).toEqual(["hangs.test", "fine.test"])
    }))
})
