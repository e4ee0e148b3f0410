import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Ref } from "effect"
import { makeFairPermits } from "../../src/services/fairPermits.ts"

describe("makeFairPermits", () => {
  it.effect("one owner holds at most its share; another owner passes while it waits", () =>
    Effect.gen(function* () {
      const permits = yield* makeFairPermits(3, 2)
      const gate = yield* Deferred.make<void>()
      const started = yield* Ref.make<ReadonlyArray<string>>([])
      // A slow decode: counts itself started, then waits for the gate.
      const slow = (name: string) => Ref.update(started, (names) => [...names, name]).pipe(Effect.zipRight(Deferred.await(gate)))

      const first = yield* Effect.fork(permits.withPermit("a")(slow("a1")))
      const second = yield* Effect.fork(permits.withPermit("a")(slow("a2")))
      yield* Effect.repeat(Ref.get(started), { until: (names) => names.length === 2 })
      const third = yield* Effect.fork(permits.withPermit("a")(slow("a3")))
      yield* Effect.yieldNow()
      // Every slot a could take is taken, and the shared pool still has one: b's decode runs now.
      yield* permits.withPermit("b")(Ref.update(started, (names) => [...names, "b"]))
      expect(yield* Ref.get(started)).toStrictEqual(["a1", "a2", "b"])

      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(Fiber.zip(Fiber.zip(first, second), third))
      expect(yield* Ref.get(started)).toStrictEqual(["a1", "a2", "b", "a3"])
    }))

  it.effect("the shared pool bounds everyone together, and a permit comes back when its work fails or is interrupted", () =>
    Effect.gen(function* () {
      const permits = yield* makeFairPermits(2, 2)
      const gate = yield* Deferred.make<void>()
      const holders = yield* Effect.forEach(["a", "b"], (owner) => Effect.fork(permits.withPermit(owner)(Deferred.await(gate))))
      const waiting = yield* Effect.fork(permits.withPermit("c")(Effect.succeed("c ran")))
      yield* Effect.yieldNow()
      expect(waiting.unsafePoll()).toBeNull()

      yield* Fiber.interrupt(holders[0]!)
      expect(yield* Fiber.join(waiting)).toBe("c ran")
      expect(yield* Effect.flip(permits.withPermit("a")(Effect.fail("failed")))).toBe("failed")
      expect(yield* permits.withPermit("a")(Effect.succeed("a again"))).toBe("a again")
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holders[1]!)
    }))
})
