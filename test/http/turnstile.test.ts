import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { isProbe, makeTurnstile, requestsPerTurn } from "../../src/http/turnstile.ts"

/** One turn of the event loop: what the turnstile lets through between two of them. */
const loopTurn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

describe("turnstile", () => {
  it.effect("requests that arrive together go a few per turn of the event loop, in the order they came", () =>
    Effect.gen(function* () {
      const turnstile = makeTurnstile()
      const through: Array<number> = []
      for (let i = 0; i < 20; i++) turnstile.enter(() => through.push(i))
      expect(through).toStrictEqual([])
      yield* loopTurn
      expect(through).toStrictEqual([0, 1, 2, 3, 4, 5, 6, 7])
      yield* loopTurn
      expect(through).toHaveLength(2 * requestsPerTurn)
      yield* loopTurn
      expect(through).toStrictEqual(Array.from({ length: 20 }, (_, i) => i))
    }))

  it.effect("a request that goes away while waiting leaves the line", () =>
    Effect.gen(function* () {
      const turnstile = makeTurnstile()
      let through = 0
      const leaves = Array.from({ length: 12 }, () => turnstile.enter(() => through++))
      for (const leave of leaves.slice(0, 10)) leave()
      yield* loopTurn
      yield* loopTurn
      expect(through).toBe(2)
    }))

  it.effect("what enters while a few are let through waits for the next turn", () =>
    Effect.gen(function* () {
      const turnstile = makeTurnstile(2)
      const through: Array<string> = []
      turnstile.enter(() => {
        through.push("first")
        turnstile.enter(() => through.push("entered by the first"))
      })
      yield* loopTurn
      expect(through).toStrictEqual(["first"])
      yield* loopTurn
      expect(through).toStrictEqual(["first", "entered by the first"])
    }))

  it.effect("a flush runs every entry still waiting, at once and in order, and leaves the line empty", () =>
    Effect.gen(function* () {
      const turnstile = makeTurnstile()
      const through: Array<number> = []
      const leaves = Array.from({ length: 20 }, (_, i) => turnstile.enter(() => through.push(i)))
      leaves[3]?.()
      turnstile.flush()
      const expected = Array.from({ length: 20 }, (_, i) => i).filter((i) => i !== 3)
      expect(through).toStrictEqual(expected)
      yield* loopTurn
      expect(through).toStrictEqual(expected)
    }))

  it("the health probes, and only they, are never held", () => {
    expect(["/healthz", "/readyz"].filter(isProbe)).toStrictEqual(["/healthz", "/readyz"])
    expect(["/api/describe", "/healthz?verbose", "/healthz/", "/metrics"].filter(isProbe)).toStrictEqual([])
  })
})
