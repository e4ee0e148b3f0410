/** The nesting of a batch body, counted before it is parsed (README, "Batches"). */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { nestsDeeperThan, parseBatchInput } from "../../src/domain/batchInput.ts"

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

describe("parseBatchInput", () => {
  it("takes `null` for an optional field as its absence, `webhookUrl` as the others (SDKs send unset fields so)", () => {
    const batch = parseBatchInput(JSON.stringify({ items: [{ imageUrl: "https://images.example.com/a.jpg" }], webhookUrl: null, itemEvents: null, metadata: null }))
    expect(Either.map(batch, ({ webhookUrl, itemEvents }) => ({ webhookUrl, itemEvents }))).toEqual(Either.right({ webhookUrl: undefined, itemEvents: false }))
  })

  it("takes `null` for an item's optional text fields and schema as their absence too", () => {
    const imageUrl = "https://images.example.com/a.jpg"
    const batch = parseBatchInput(JSON.stringify({ items: [{ imageUrl, keywords: null, context: null, language: null, schema: null }] }))
    expect(Either.map(batch, ({ items }) => items.map((item) => item.fields))).toEqual(Either.right([{ imageUrl }]))
  })
})
