import { describe, expect, it } from "@effect/vitest"
import { Data, Effect, Logger } from "effect"
import { makeOutageLog } from "../../src/services/outageLog.ts"

class StatementFailed extends Data.TaggedError("StatementFailed")<{ readonly message: string }> {}

/** Runs `steps` (a failure's message, or "ok") through one outage log: what it logged, in order. */
const collect = (steps: ReadonlyArray<string>) => {
  const logged: Array<string> = []
  const logger = Logger.make(({ message, cause }) => {
    const text = String(Array.isArray(message) ? message[0] : message)
    logged.push(cause._tag === "Fail" ? `${text} (${(cause.error as StatementFailed).message})` : text)
  })
  return Effect.gen(function* () {
    const watched = yield* makeOutageLog({ failing: "workers failing", resumed: "workers resumed" })
    for (const step of steps) yield* watched(step === "ok" ? Effect.void : new StatementFailed({ message: step }))
    return logged
  }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
}

describe("the outage log", () => {
  it.effect("logs a failure that repeats once, and its end once", () =>
    Effect.map(collect(["refused", "refused", "refused", "ok", "ok"]), (logged) =>
      expect(logged).toEqual(["workers failing (refused)", "workers resumed"])))

  it.effect("logs a different failure during an outage, once, and again after the outage ended", () =>
    Effect.map(collect(["refused", "no such table", "refused", "no such table", "ok", "refused"]), (logged) =>
      expect(logged).toEqual([
        "workers failing (refused)",
        "workers failing (no such table)",
        "workers resumed",
        "workers failing (refused)"
      ])))

  it.effect("logs at most 8 different failures in one outage, whose messages may vary without end", () =>
    Effect.map(collect(Array.from({ length: 20 }, (_, i) => `timed out after ${i} ms`)), (logged) =>
      expect(logged).toEqual(Array.from({ length: 8 }, (_, i) => `workers failing (timed out after ${i} ms)`))))
})
