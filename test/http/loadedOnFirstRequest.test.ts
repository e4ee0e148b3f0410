import { describe, expect, it } from "@effect/vitest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect, Logger } from "effect"
import { loadedOnFirstRequest } from "../../src/http/loadedOnFirstRequest.ts"

interface Logged {
  readonly level: string
  readonly message: unknown
  readonly cause: string
}

/** Runs `effect` with its log lines collected. */
const withLogs = <A, E>(effect: Effect.Effect<A, E>) => {
  const logged: Array<Logged> = []
  const collecting = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message, cause }) => logged.push({ level: logLevel.label, message, cause: Cause.pretty(cause) }))
  )
  return Effect.map(Effect.provide(effect, collecting), (value) => ({ value, logged }))
}

const unavailable = HttpServerResponse.text("Internal Server Error", { status: 500, headers: { "x-frame-options": "DENY" } })

describe("an app loaded on its first request", () => {
  it.effect("is loaded once, by the first of many requests at once, and then answers every request", () =>
    Effect.gen(function* () {
      let loads = 0
      const app = loadedOnFirstRequest({
        what: "The pages",
        load: async () => {
          loads++
          return Effect.succeed(HttpServerResponse.text("a page"))
        },
        unavailable
      })
      const answers = yield* Effect.all(Array.from({ length: 10 }, () => app), { concurrency: "unbounded" })
      const later = yield* app
      expect(loads).toBe(1)
      expect([...answers, later].map((answer) => answer.status)).toEqual(Array(11).fill(200))
    }))

  it.effect("a load that fails: every request answered `unavailable`, the cause logged once as an error, no retry", () =>
    Effect.gen(function* () {
      let loads = 0
      const app = loadedOnFirstRequest<never, never>({
        what: "The pages",
        load: async () => {
          loads++
          throw new Error("Cannot find module './routes/usage.ts'")
        },
        unavailable
      })
      const { value: answers, logged } = yield* withLogs(Effect.all([app, app, app]))
      expect(answers).toEqual([unavailable, unavailable, unavailable])
      expect(loads).toBe(1)
      expect(logged.map(({ level, message }) => [level, message])).toEqual([
        ["ERROR", ["The pages could not be loaded: its requests are answered 500 until the service restarts"]]
      ])
      expect(logged[0]?.cause).toContain("Cannot find module './routes/usage.ts'")
    }))
})
