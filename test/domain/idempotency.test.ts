import { createHash } from "node:crypto"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { type BatchInput, parseBatchInput } from "../../src/domain/batchInput.ts"
import { batchDigest, requestDigest } from "../../src/domain/idempotency.ts"
import { formOf, formText } from "../support/describeForm.ts"

const text = formText
const form = formOf
const file = (bytes: ReadonlyArray<number>) => ({ bytes: new Uint8Array(bytes), size: bytes.length })

describe("requestDigest", () => {
  it("two requests for images at different URLs are different requests", () => {
    expect(requestDigest(form({ imageUrl: text("https://a.test/1.jpg") })))
      .not.toBe(requestDigest(form({ imageUrl: text("https://a.test/2.jpg") })))
  })

  it("with a file, the URL beside it is not what is described, so it does not count", () => {
    expect(requestDigest(form({ image: file([1, 2, 3]), imageUrl: text("https://a.test/1.jpg") })))
      .toBe(requestDigest(form({ image: file([1, 2, 3]) })))
  })

  it("the fields as the service uses them: a blank language is English, another image differs", () => {
    expect(requestDigest(form({ image: file([1]), language: text("  ") }))).toBe(requestDigest(form({ image: file([1]), language: text("en") })))
    expect(requestDigest(form({ image: file([1]) }))).not.toBe(requestDigest(form({ image: file([2]) })))
  })

  it("a blank schema is no schema, and an empty file beside a URL no file: the same request as without them", () => {
    expect(requestDigest(form({ image: file([1]), schema: text(" ") }))).toBe(requestDigest(form({ image: file([1]) })))
    expect(requestDigest(form({ image: file([]), imageUrl: text("https://a.test/1.jpg") })))
      .toBe(requestDigest(form({ imageUrl: text("https://a.test/1.jpg") })))
  })
})

describe("batchDigest", () => {
  it("is the digest earlier versions stored for the same body (a retry across an upgrade is the same batch), Python's escapes and spaces included", () => {
    const body = `{"items": [{"imageUrl": "https://a.test/1.jpg", "schema": {"title": "Un titre \\u00e9"}, "metadata": {"postId": 7, "note": "caf\\u00e9"}}]}`
    const read = Either.getOrThrow(parseBatchInput(body))
    // What 5172a6e stored: the schema object and the metadata written again by JSON.stringify, the metadata's keys sorted.
    const sorted = (value: unknown): unknown =>
      value !== null && typeof value === "object" && !Array.isArray(value)
        ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted((value as Record<string, unknown>)[key])]))
        : value
    const earlier = createHash("sha256").update(JSON.stringify({
      items: [{ fields: { imageUrl: "https://a.test/1.jpg", schema: JSON.stringify({ title: "Un titre é" }) }, metadata: sorted({ postId: 7, note: "café" }) }],
      webhookUrl: undefined,
      itemEvents: false
    })).digest("hex")
    expect(batchDigest(read)).toBe(earlier)
  })


  const batch = (metadata: string | undefined, schema = `{"title":"A title","alt":"Alt text"}`): BatchInput => ({
    items: [{ fields: { imageUrl: "https://example.com/a.jpg", schema }, metadata }],
    webhookUrl: undefined,
    itemEvents: false
  })

  it("the order of keys in metadata does not count; values, and the order of a schema's fields, do", () => {
    expect(batchDigest(batch(`{"a":1,"b":{"c":2,"d":[{"e":3,"f":4}]}}`))).toBe(batchDigest(batch(`{"b":{"d":[{"f":4,"e":3}],"c":2},"a":1}`)))
    expect(batchDigest(batch(`{"a":1}`))).not.toBe(batchDigest(batch(`{"a":2}`)))
    // Ids past 2^53, which JSON.parse reads as one number, are two batches.
    expect(batchDigest(batch(`{"id":9007199254740993}`))).not.toBe(batchDigest(batch(`{"id":9007199254740992}`)))
    expect(batchDigest(batch(`[1,2]`))).not.toBe(batchDigest(batch(`[2,1]`)))
    expect(batchDigest(batch(undefined))).not.toBe(batchDigest(batch("null")))
    expect(batchDigest(batch(undefined, `{"alt":"Alt text","title":"A title"}`))).not.toBe(batchDigest(batch(undefined)))
  })
})
