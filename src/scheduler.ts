/**
 * The scheduler the service's fibers run on. Effect's default runs a fiber's next steps as
 * microtasks, so what many fibers resume at once (the answers to many statements read in one turn
 * of the event loop) ran as one task, during which no socket was read: with 1,000 describes in
 * flight on PostgreSQL, `/healthz` waited 40 to 60 ms behind them (docs/BENCHMARKS.md, "fibers
 * take turns with the sockets"). This one runs them the same way until the thread has worked
 * `sliceMs` in this turn of the loop; what comes after waits for the loop's next turn, after the
 * sockets are read, in the order it was put off, and gets a slice of that turn of its own.
 */
import * as Scheduler from "effect/Scheduler"

/** A scheduler that lets the event loop take a turn after `sliceMs` of fibers' work. */
export const timeSliced = (sliceMs: number): Scheduler.Scheduler => {
  /** When the current slice began; undefined once the loop has taken its turn. */
  let sliceStart: number | undefined
  let endPending = false
  const endSlice = () => {
    endPending = false
    sliceStart = undefined
  }
  /** Begins a slice at `now`, and gives `now` back. */
  const startSlice = (now: number) => {
    sliceStart = now
    if (!endPending) {
      endPending = true
      // `setImmediate` runs once the loop has polled its sockets: work after it is a new slice.
      setImmediate(endSlice)
    }
    return now
  }
  const sliceSpent = () => {
    const now = performance.now()
    return now - (sliceStart ?? startSlice(now)) >= sliceMs
  }

  /** Drains put off to the loop's next turn, in the order they were put off. */
  const later: Array<() => void> = []
  let laterScheduled = false
  const runLater = () => {
    laterScheduled = false
    // A slice of its own, or new work arriving every turn could keep this waiting for ever.
    startSlice(performance.now())
    // A drain only schedules its next one (a microtask, after this), so the line cannot grow here;
    // what does not fit stays first in it.
    let ran = 0
    try {
      while (later.length > 0 && (ran++ === 0 || !sliceSpent())) later.shift()?.()
    } finally {
      if (later.length > 0) scheduleLater()
    }
  }
  const scheduleLater = () => {
    if (laterScheduled) return
    laterScheduled = true
    setImmediate(runLater)
  }

  // Decided when the drain would run, not when it is scheduled: hundreds of fibers resumed by one
  // read are all scheduled before the first of them runs.
  const runner = Scheduler.SchedulerRunner.cached((depth, drain) =>
    queueMicrotask(() => {
      if (sliceSpent()) {
        later.push(() => drain(0))
        scheduleLater()
      } else {
        drain(depth + 1)
      }
    })
  )

  return {
    shouldYield: Scheduler.defaultShouldYield,
    scheduleTask: (task, priority, fiber) => runner(fiber).scheduleTask(task, priority)
  }
}
