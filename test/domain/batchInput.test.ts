/** The body of `POST /api/batches` as read (README, "Batches"). */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseBatchInput } from "../../src/domain/batchInput.ts"

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

  it("keeps each item's metadata as sent: ids past 2^53, 1e400, -0 and 19.90 come back as written, spaces between tokens dropped", () => {
    const body = `{"items":[{"metadata": {"postId": 1850000000000000001, "big": 1e400, "zero": -0, "price": 19.90, "name": "a  b", "dup": 1, "dup": 2}},
      {"imageUrl": "https://images.example.com/a.jpg"}, {"\u006detadata": [9007199254740993]}]}`
    expect(Either.map(parseBatchInput(body), ({ items }) => items.map((item) => item.metadata))).toEqual(Either.right([
      `{"postId":1850000000000000001,"big":1e400,"zero":-0,"price":19.90,"name":"a  b","dup":1,"dup":2}`,
      undefined,
      "[9007199254740993]"
    ]))
  })

  it("counts metadata's 1 KiB as JSON.stringify writes it: Python's escaped é (6 bytes sent) is the 2 bytes of é", () => {
    const escaped = `{"items":[{"metadata":{"title":"${"\\u00e9".repeat(500)}"}}]}`
    expect(Either.map(parseBatchInput(escaped), ({ items }) => items[0]?.metadata)).toEqual(Either.right(`{"title":"${"é".repeat(500)}"}`))
  })

  it("keeps an item's schema object in the order sent, integer-like names included (JSON.parse moves them first)", () => {
    const body = `{"items":[{"schema": {"title": "A title", "2": "Second", "1": "First"}}]}`
    expect(Either.map(parseBatchInput(body), ({ items }) => items.map((item) => item.fields.schema)))
      .toEqual(Either.right([`{"title":"A title","2":"Second","1":"First"}`]))
  })

  it("reads the items of the last `items` key, as JSON.parse does", () => {
    const body = `{"items":[{"metadata":1},{"metadata":2}],"items":[{"metadata":3}]}`
    expect(Either.map(parseBatchInput(body), ({ items }) => items.map((item) => item.metadata))).toEqual(Either.right(["3"]))
  })
})
