import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Ref, Supervisor } from "effect"
import { makeFifoSemaphore } from "../../src/services/fifoSemaphore.ts"

/** Counts how often the fibers it supervises are woken. */
class Wakeups extends Supervisor.AbstractSupervisor<number> {
  count = 0
  value = Effect.sync(() => this.count)
  override onResume() {
    this.count++
  }
}

/** Work that ends on a later turn of the event loop, as a decode or a query does. */
const elsewhere = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 0)))

describe("FifoSemaphore", () => {
  it.effect("500 waiters for one permit are each woken once, in the order they came", () =>
    Effect.gen(function* () {
      const waiting = 500
      const semaphore = yield* makeFifoSemaphore(1)
      const gate = yield* Deferred.make<void>()
      const order = yield* Ref.make<ReadonlyArray<number>>([])
      const holder = yield* Effect.fork(semaphore.withPermits(1)(Deferred.await(gate)))
      yield* Effect.yieldNow()
      const wakeups = new Wakeups()
      const waiters = yield* Effect.forEach(Array.from({ length: waiting }, (_, i) => i), (i) =>
        Effect.fork(semaphore.withPermits(1)(Effect.zipRight(Ref.update(order, (seen) => [...seen, i]), elsewhere))).pipe(Effect.supervised(wakeups)))
      yield* Effect.yieldNow()
      expect(yield* Ref.get(order)).toStrictEqual([])

      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.joinAll(waiters)
      expect(yield* Ref.get(order)).toStrictEqual(Array.from({ length: waiting }, (_, i) => i))
      // Effect's own Semaphore wakes every waiter at each release: about 125,000 here.
      expect(wakeups.count).toBeLessThanOrEqual(4 * waiting)
    }))

  it.effect("first fit: a later, smaller request passes a larger one; the larger is served once enough is back", () =>
    Effect.gen(function* () {
      const semaphore = yield* makeFifoSemaphore(4)
      yield* semaphore.take(3)
      const large = yield* Effect.fork(semaphore.take(4))
      yield* Effect.yieldNow()
      // One permit is free: the small request takes it although the large one came first.
      yield* semaphore.take(1)
      yield* semaphore.release(3)
      yield* Effect.yieldNow()
      expect(large.unsafePoll()).toBeNull()
      yield* semaphore.release(1)
      yield* Fiber.join(large)
    }))

  it.effect("an interrupted waiter leaves nothing behind, whether it was waiting or had just been served", () =>
    Effect.gen(function* () {
      const semaphore = yield* makeFifoSemaphore(1)
      yield* semaphore.take(1)
      const waiting = yield* Effect.fork(semaphore.take(1))
      const served = yield* Effect.fork(semaphore.withPermits(1)(Effect.never))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(waiting)
      // The release hands the permit to `served`, and its interruption follows at once.
      yield* Effect.zipRight(semaphore.release(1), Fiber.interrupt(served))
      yield* semaphore.take(1)
    }))
})
