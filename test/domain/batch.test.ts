/** An item as the API and its events show it (README, "Batches"). */
import { describe, expect, it } from "@effect/vitest"
import { itemEventData, itemJson, type ItemRow } from "../../src/domain/batch.ts"

const stored = `{"2":"second","title":"A red kite"}`
const item = (state: ItemRow["state"], status: number | null): ItemRow => ({
  position: 3, state, metadata: `{"sku":"A-1"}`, status, error: null, result: stored, contentLanguage: "fr", describer: "openai-compatible"
})

describe("a batch item as JSON", () => {
  it("a succeeded item shows its result as it was answered (keys in their order, integer-like ones too), its language and what wrote it", () => {
    expect(itemJson(item("succeeded", 200))).toBe(
      `{"index":3,"state":"succeeded","status":200,"result":${stored},"language":"fr","describer":"openai-compatible","metadata":{"sku":"A-1"}}`
    )
  })

  it("a running item whose result is stored, its credit not yet captured, shows no result (a capture undone would make it free)", () => {
    expect(itemJson(item("running", null))).toBe(`{"index":3,"state":"running","metadata":{"sku":"A-1"}}`)
    expect(itemEventData("b-1", item("canceled", null))).toStrictEqual({ batchId: "b-1", index: 3, state: "canceled", metadata: { sku: "A-1" } })
  })
})
