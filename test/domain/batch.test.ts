/** An item as the API and its events show it (README, "Batches"). */
import { describe, expect, it } from "@effect/vitest"
import { itemEventData, itemJson, type ItemRow } from "../../src/domain/batch.ts"
import { eventBody } from "../../src/domain/webhooks.ts"

const stored = `{"2":"second","title":"A red kite"}`
const item = (state: ItemRow["state"], status: number | null): ItemRow => ({
  position: 3, state, metadata: `{"sku":"A-1"}`, status, error: null, result: stored, contentLanguage: "fr", describer: "openai-compatible"
})

describe("a batch item as JSON", () => {
  it("an item's event carries its result and metadata as stored, as GET shows them (an id past 2^53, integer-like names in their place)", () => {
    const exact: ItemRow = { ...item("succeeded", 200), metadata: `{"postId":1850000000000000001,"big":1e400}` }
    const body = eventBody("batch.item.completed", new Date("2026-11-28T12:00:00.000Z"), itemEventData("b-1", exact))
    expect(body).toBe(
      `{"type":"batch.item.completed","timestamp":"2026-11-28T12:00:00.000Z","data":{"batchId":"b-1",${itemJson(exact).slice(1)}}`
    )
    expect(body).toContain(`"result":${stored}`)
    expect(body).toContain(`"metadata":{"postId":1850000000000000001,"big":1e400}`)
  })

  it("a succeeded item shows its result as it was answered (keys in their order, integer-like ones too), its language and what wrote it", () => {
    expect(itemJson(item("succeeded", 200))).toBe(
      `{"index":3,"state":"succeeded","status":200,"result":${stored},"language":"fr","describer":"openai-compatible","metadata":{"sku":"A-1"}}`
    )
  })

  it("a running item whose result is stored, its credit not yet captured, shows no result (a capture undone would make it free)", () => {
    expect(itemJson(item("running", null))).toBe(`{"index":3,"state":"running","metadata":{"sku":"A-1"}}`)
    expect(itemEventData("b-1", item("canceled", null)).text).toBe(`{"batchId":"b-1","index":3,"state":"canceled","metadata":{"sku":"A-1"}}`)
  })
})
