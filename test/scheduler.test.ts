import { describe, expect, it } from "@effect/vitest"
import { Effect, Scheduler } from "effect"
import { timeSliced } from "../src/scheduler.ts"

/** Keeps the thread busy for `ms`, as a request's step of real work does. */
const work = (ms: number) =>
  Effect.sync(() => {
    const until = performance.now() + ms
    while (performance.now() < until) { /* busy */ }
  })

/**
 * `fibers` fibers of `steps` steps of `stepMs` each, started together under `scheduler`, with a
 * callback of the event loop's next turn (`setImmediate`, as a socket's read would be) asked for
 * at the start: how many steps had run when that turn came, and in which order the fibers ended.
 */
const race = (scheduler: Scheduler.Scheduler, fibers: number, steps: number, stepMs: number) =>
  Effect.gen(function* () {
    let done = 0
    const ended: Array<number> = []
    const turn = Effect.async<number>((resume) => {
      setImmediate(() => resume(Effect.succeed(done)))
    })
    const fiber = (n: number) =>
      Effect.gen(function* () {
        for (let step = 0; step < steps; step++) {
          yield* work(stepMs)
          done++
          yield* Effect.yieldNow()
        }
        ended.push(n)
      })
    const [stepsBeforeTheTurn] = yield* Effect.all(
      [turn, Effect.forEach(Array.from({ length: fibers }, (_, n) => n), fiber, { concurrency: "unbounded", discard: true })],
      { concurrency: "unbounded" }
    ).pipe(Effect.withScheduler(scheduler))
    return { stepsBeforeTheTurn, ended, total: done }
  })

describe("timeSliced", () => {
  it.live("lets the event loop take a turn once the fibers have worked a slice", () =>
    Effect.gen(function* () {
      const { stepsBeforeTheTurn, total } = yield* race(timeSliced(5), 20, 5, 1)
      expect(total).toBe(100)
      // About five steps fit in a slice of 5 ms; the default scheduler would run all 100 first.
      expect(stepsBeforeTheTurn).toBeLessThan(20)
    }))

  it.live("the default scheduler, for contrast, runs every step before the loop's turn", () =>
    Effect.gen(function* () {
      const { stepsBeforeTheTurn } = yield* race(Scheduler.defaultScheduler, 20, 5, 1)
      expect(stepsBeforeTheTurn).toBe(100)
    }))

  it.live("light work runs to its end within the turn that started it", () =>
    Effect.gen(function* () {
      const { stepsBeforeTheTurn } = yield* race(timeSliced(1_000), 10, 3, 0)
      expect(stepsBeforeTheTurn).toBe(30)
    }))

  it.live("work put off to a later turn keeps the order it was scheduled in", () =>
    Effect.gen(function* () {
      const { ended } = yield* race(timeSliced(2), 10, 4, 1)
      expect(ended).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    }))
})
