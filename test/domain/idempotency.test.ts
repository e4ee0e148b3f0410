import { describe, expect, it } from "vitest"
import { requestDigest } from "../../src/domain/idempotency.ts"
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
