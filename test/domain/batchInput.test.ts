/** The nesting of a batch body, counted before it is parsed (README, "Batches"). */
import { describe, expect, it } from "@effect/vitest"
import { nestsDeeperThan } from "../../src/domain/batchInput.ts"

describe("nestsDeeperThan", () => {
  it("counts arrays and objects inside one another, up to the limit included", () => {
    expect(nestsDeeperThan(`{"a":[{"b":[]}]}`, 4)).toBe(false)
    expect(nestsDeeperThan(`{"a":[{"b":[]}]}`, 3)).toBe(true)
    expect(nestsDeeperThan(`[[],[],[]]`, 2)).toBe(false)
  })

  it("does not count brackets inside strings, escaped quotes included", () => {
    expect(nestsDeeperThan(`{"a":"[[[{{{"}`, 1)).toBe(false)
    expect(nestsDeeperThan(`{"a":"\\"[[[\\\\"}`, 1)).toBe(false)
    expect(nestsDeeperThan(`{"a":"\\\\",[[]]}`, 2)).toBe(true)
  })

  it("refuses a million levels without reading past the limit", () => {
    expect(nestsDeeperThan("[".repeat(1_000_000), 64)).toBe(true)
  })
})
