/**
 * A semaphore that wakes only the waiters it can serve. Effect 3's own `Semaphore` wakes every
 * waiter on each release and lets all but one take again, each retry one more frame on that
 * fiber's stack: with 1,000 requests queued for 3 decode slots, every release cost 1,000 wake-ups
 * and every waiter ended with thousands of frames (1.5 GB and 45 describes/s in
 * `scripts/bench/slowModel.ts`; docs/BENCHMARKS.md, "1,000 requests at once"). Here a release
 * hands its permits to the earliest waiters they cover, and a waiter never waits twice.
 *
 * First fit, as Effect's: a waiter for more than is free does not hold back a later, smaller one.
 * Strict arrival order would deadlock a body read in pieces (UploadBudget) whose next piece waits
 * behind a body that needs the bytes the first one holds.
 */
import * as Effect from "effect/Effect"

export interface FifoSemaphore {
  /** Waits until `n` permits are this fiber's; earlier callers that fit are served first. */
  readonly take: (n: number) => Effect.Effect<void>
  readonly release: (n: number) => Effect.Effect<void>
  /** Runs `self` holding `n` permits, given back however it ends. */
  readonly withPermits: (n: number) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

interface Waiter {
  readonly n: number
  readonly wake: () => void
  /** Set when the permits became this waiter's, before its fiber runs again. */
  granted: boolean
}

export const unsafeMakeFifoSemaphore = (permits: number): FifoSemaphore => {
  let free = permits
  // Arrival order; `Set` keeps insertion order and removes a cancelled waiter in O(1).
  const waiters = new Set<Waiter>()

  const grant = () => {
    for (const waiter of waiters) {
      if (free === 0) return
      if (waiter.n > free) continue
      waiters.delete(waiter)
      free -= waiter.n
      waiter.granted = true
      waiter.wake()
    }
  }

  const giveBack = (n: number) => {
    free += n
    grant()
  }

  const take = (n: number) =>
    Effect.async<void>((resume) => {
      if (n <= free) {
        free -= n
        return resume(Effect.void)
      }
      const waiter: Waiter = { n, wake: () => resume(Effect.void), granted: false }
      waiters.add(waiter)
      // Interrupted while waiting: leave the queue; interrupted after the permits were handed over
      // but before running again: they go back.
      return Effect.sync(() => {
        if (waiter.granted) return giveBack(n)
        waiters.delete(waiter)
      })
    })

  const release = (n: number) => Effect.sync(() => giveBack(n))

  return {
    take,
    release,
    withPermits: (n) => (self) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(restore(take(n)), Effect.ensuring(restore(self), release(n)))
      )
  }
}

export const makeFifoSemaphore = (permits: number): Effect.Effect<FifoSemaphore> =>
  Effect.sync(() => unsafeMakeFifoSemaphore(permits))
