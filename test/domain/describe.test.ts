import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { defaultFields, describeResultEntries, describeResultJson } from "../../src/domain/describe.ts"

describe("describeResultEntries", () => {
  it("without a schema: the default fields, then alt_text copied from alternativeText (§2.1)", () => {
    const result = { caption: "c", title: "t", alternativeText: "a" }
    expect(describeResultEntries(defaultFields, result, false)).toStrictEqual([
      ["title", "t"], ["alternativeText", "a"], ["caption", "c"], ["alt_text", "a"]
    ])
  })

  it("with a schema: exactly its fields, in its order", () => {
    const fields = [{ name: "2", description: "" }, { name: "b", description: "" }, { name: "1", description: "" }]
    expect(describeResultEntries(fields, { 1: "one", b: "bee", 2: "two" }, true)).toStrictEqual([["2", "two"], ["b", "bee"], ["1", "one"]])
  })
})

describe("describeResultJson", () => {
  it("keeps the order of the entries, integer-like names included", () => {
    expect(describeResultJson([["b", "x"], ["10", "y"], ["2", "z"]])).toBe(`{"b":"x","10":"y","2":"z"}`)
    expect(describeResultJson([["b", "x"], ["2", "z"]], "  ")).toBe(`{\n  "b": "x",\n  "2": "z"\n}`)
    expect(describeResultJson([])).toBe("{}")
    expect(describeResultJson([], "  ")).toBe("{}")
  })

  it.prop("is JSON holding exactly the entries, in their order, compact or indented", [
    fc.uniqueArray(fc.tuple(fc.string(), fc.string()), { selector: ([name]) => name, maxLength: 20 }),
    fc.constantFrom(undefined, "  ", "\t")
  ], ([entries, indent]) => {
    const text = describeResultJson(entries, indent)
    expect(JSON.parse(text)).toStrictEqual(Object.fromEntries(entries))
    // The text's strings, in order, are each name followed by its value.
    const strings = (text.match(/"(?:[^"\\]|\\.)*"/g) ?? []).map((token): unknown => JSON.parse(token))
    expect(strings).toStrictEqual(entries.flat())
  })
})
