import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Ref, TestClock } from "effect"
import { limits } from "../../src/domain/limits.ts"
import { make, shareOf, type UploadBudgetShape } from "../../src/services/UploadBudget.ts"

const MB = 1024 * 1024

/** A budget of `bytes` whose collections are counted; one account holds at most `perOwner`. */
const budgetOf = (bytes: number, perOwner?: number) =>
  Effect.gen(function* () {
    const collections = yield* Ref.make(0)
    const budget = yield* make(bytes, Ref.update(collections, (n) => n + 1), perOwner)
    return { budget, collections: Ref.get(collections) }
  })

/** Runs `effect` with `bytes` held by `owner`, as a body with a Content-Length is read. */
const holding = <A, E>(budget: UploadBudgetShape, bytes: number, effect: Effect.Effect<A, E>, owner = "an account") =>
  Effect.scoped(Effect.flatMap(budget.hold(owner), (held) => Effect.zipRight(held.take(bytes), effect)))

/** Holds `bytes` for `owner` until `release` is completed; `started` says it got them. */
const holder = (budget: UploadBudgetShape, bytes: number, owner = "an account") =>
  Effect.gen(function* () {
    const started = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const fiber = yield* Effect.fork(holding(budget, bytes, Deferred.succeed(started, undefined).pipe(Effect.zipRight(Deferred.await(release))), owner))
    return { started, release, fiber }
  })

describe("UploadBudget", () => {
  it.scoped("bodies past the budget wait until enough of it is given back; a smaller one fits beside", () =>
    Effect.gen(function* () {
      const { budget } = yield* budgetOf(10)
      const first = yield* holder(budget, 6)
      yield* Deferred.await(first.started)
      const second = yield* holder(budget, 6)
      const small = yield* holder(budget, 4)
      yield* Deferred.await(small.started)
      yield* Effect.yieldNow()
      expect(yield* Deferred.isDone(second.started)).toBe(false)
      yield* Deferred.succeed(first.release, undefined)
      yield* Fiber.join(first.fiber)
      yield* Deferred.await(second.started)
      yield* Deferred.succeed(second.release, undefined)
      yield* Deferred.succeed(small.release, undefined)
    }))

  it.scoped("a body larger than the whole budget holds all of it rather than waiting forever", () =>
    Effect.gen(function* () {
      const { budget } = yield* budgetOf(10)
      expect(yield* holding(budget, 25, Effect.succeed("read"))).toBe("read")
    }))

  it.scoped("a chunked body holds what has arrived, chunk by chunk, and gives it all back at its end", () =>
    Effect.gen(function* () {
      const { budget } = yield* budgetOf(10)
      const trickle = yield* Deferred.make<void>()
      const chunked = yield* Effect.fork(Effect.scoped(Effect.gen(function* () {
        const held = yield* budget.hold("an account")
        yield* held.take(3)
        yield* Deferred.await(trickle)
        yield* held.take(4)
      })))
      // 3 bytes in: 7 are free for another body, 8 are not.
      yield* Effect.yieldNow()
      expect(yield* holding(budget, 7, Effect.succeed("fits"))).toBe("fits")
      const big = yield* holder(budget, 8)
      yield* Effect.yieldNow()
      expect(yield* Deferred.isDone(big.started)).toBe(false)
      yield* Deferred.succeed(trickle, undefined)
      yield* Fiber.join(chunked)
      yield* Deferred.await(big.started)
      yield* Deferred.succeed(big.release, undefined)
    }))

  it.scoped("one account holds at most its share: its next body waits, another account's fits beside", () =>
    Effect.gen(function* () {
      const { budget } = yield* budgetOf(10, 6)
      const first = yield* holder(budget, 6, "x")
      yield* Deferred.await(first.started)
      const second = yield* holder(budget, 1, "x")
      // 4 bytes are free, none of them x's.
      expect(yield* holding(budget, 4, Effect.succeed("fits"), "y")).toBe("fits")
      yield* Effect.yieldNow()
      expect(yield* Deferred.isDone(second.started)).toBe(false)
      yield* Deferred.succeed(first.release, undefined)
      yield* Deferred.await(second.started)
      yield* Deferred.succeed(second.release, undefined)
    }))

  it.scoped("a body larger than its account's share holds the whole share rather than waiting forever", () =>
    Effect.gen(function* () {
      const { budget } = yield* budgetOf(10, 6)
      const big = yield* holder(budget, 25, "x")
      yield* Deferred.await(big.started)
      expect(yield* holding(budget, 4, Effect.succeed("fits"), "y")).toBe("fits")
      yield* Deferred.succeed(big.release, undefined)
    }))

  it("an account's share is half the budget, at least one whole body, at most the budget", () => {
    expect(shareOf(64 * MB)).toBe(32 * MB)
    expect(shareOf(16 * MB)).toBe(limits.bodyBytes)
    expect(shareOf(limits.bodyBytes)).toBe(limits.bodyBytes)
  })

  it.scoped("the budget is given back when the work fails or is interrupted", () =>
    Effect.gen(function* () {
      const { budget } = yield* budgetOf(10)
      expect(yield* Effect.flip(holding(budget, 10, Effect.fail("bad form")))).toBe("bad form")
      const stuck = yield* holder(budget, 10)
      yield* Deferred.await(stuck.started)
      yield* Fiber.interrupt(stuck.fiber)
      expect(yield* holding(budget, 10, Effect.succeed("next"))).toBe("next")
    }))

  it.scoped("garbage is collected once, a second after the last upload ends, never while one is held", () =>
    Effect.gen(function* () {
      const { budget, collections } = yield* budgetOf(100)
      const a = yield* holder(budget, 10)
      const b = yield* holder(budget, 10)
      yield* Deferred.await(a.started)
      yield* Deferred.await(b.started)
      yield* Deferred.succeed(a.release, undefined)
      yield* Fiber.join(a.fiber)
      yield* TestClock.adjust("5 seconds")
      expect(yield* collections).toBe(0) // b still holds its body
      yield* Deferred.succeed(b.release, undefined)
      yield* Fiber.join(b.fiber)
      yield* TestClock.adjust("999 millis")
      expect(yield* collections).toBe(0)
      yield* TestClock.adjust("1 millis")
      expect(yield* collections).toBe(1)
      yield* TestClock.adjust("1 minute")
      expect(yield* collections).toBe(1)
    }))

  it.scoped("an upload that begins within the second puts the collection off", () =>
    Effect.gen(function* () {
      const { budget, collections } = yield* budgetOf(100)
      yield* holding(budget, 10, Effect.void)
      yield* TestClock.adjust("500 millis")
      const next = yield* holder(budget, 10)
      yield* Deferred.await(next.started)
      yield* TestClock.adjust("2 seconds")
      expect(yield* collections).toBe(0)
      yield* Deferred.succeed(next.release, undefined)
      yield* Fiber.join(next.fiber)
      yield* TestClock.adjust("1 second")
      expect(yield* collections).toBe(1)
    }))
})
