import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { parseSchemaFields } from "../../src/domain/schemaFields.ts"

const reasonOf = (text: string) =>
  Either.match(parseSchemaFields(text), { onLeft: (e) => `Invalid schema: ${e.reason}`, onRight: () => "valid" })

const schemaOf = (entries: ReadonlyArray<readonly [string, unknown]>) =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`

const fields = (count: number) => schemaOf(Array.from({ length: count }, (_, i) => [`field${i}`, "a description"]))

describe("schema rules (§2.2, §7.1)", () => {
  it("keeps the fields in the client's order", () => {
    expect(parseSchemaFields('{"seoTitle":"A title for search","tags":"Five tags","caption":"A caption"}')).toEqual(
      Either.right([
        { name: "seoTitle", description: "A title for search" },
        { name: "tags", description: "Five tags" },
        { name: "caption", description: "A caption" }
      ])
    )
  })

  it("reads a schema after a byte order mark (a file saved by a Windows editor, sent as read); one elsewhere is no JSON", () => {
    expect(parseSchemaFields('\uFEFF{"title":"A title"}')).toEqual(Either.right([{ name: "title", description: "A title" }]))
    expect(reasonOf('\uFEFF\uFEFF{"title":"A title"}')).toBe("Invalid schema: the schema must be valid JSON")
    expect(reasonOf(' \uFEFF{"title":"A title"}')).toBe("Invalid schema: the schema must be valid JSON")
  })

  it("keeps integer-like names in the client's order too (JSON.parse moves them first); a name sent twice keeps its first place and last value", () => {
    expect(parseSchemaFields('{"title":"A title","2":"Second","1":"First"}')).toEqual(Either.right([
      { name: "title", description: "A title" },
      { name: "2", description: "Second" },
      { name: "1", description: "First" }
    ]))
    expect(parseSchemaFields('{"a":"x","b":"y","a":"z"}')).toEqual(Either.right([{ name: "a", description: "z" }, { name: "b", description: "y" }]))
  })

  it("allows 20 fields and refuses 21 with the spec's message", () => {
    expect(reasonOf(fields(20))).toBe("valid")
    expect(reasonOf(fields(21))).toBe("Invalid schema: at most 20 fields are allowed")
  })

  it("allows 64-character names and refuses 65, counting characters not bytes", () => {
    expect(reasonOf(schemaOf([["n".repeat(64), "d"]]))).toBe("valid")
    expect(reasonOf(schemaOf([["é".repeat(64), "d"]]))).toBe("valid")
    expect(reasonOf(schemaOf([["😀".repeat(64), "d"]]))).toBe("valid")
    expect(reasonOf(schemaOf([["n".repeat(65), "d"]]))).toBe("Invalid schema: field names must be at most 64 characters")
  })

  it("allows 1,000-character descriptions and refuses 1,001", () => {
    expect(reasonOf(schemaOf([["alt", "d".repeat(1000)]]))).toBe("valid")
    expect(reasonOf(schemaOf([["alt", "d".repeat(1001)]]))).toBe(
      "Invalid schema: field descriptions must be at most 1000 characters"
    )
  })

  it("refuses `__proto__` and keeps `constructor` and `prototype` as ordinary names", () => {
    expect(reasonOf('{"title":"t","__proto__":"x"}')).toBe('Invalid schema: "__proto__" is not allowed as a field name')
    expect(parseSchemaFields('{"constructor":"c","prototype":"p"}')).toEqual(
      Either.right([{ name: "constructor", description: "c" }, { name: "prototype", description: "p" }])
    )
    expect(({} as Record<string, unknown>)["x"]).toBeUndefined()
  })

  it("gives a clear reason for invalid JSON, non-objects, nesting, non-strings and emptiness", () => {
    expect(reasonOf("{title: 'x'}")).toBe("Invalid schema: the schema must be valid JSON")
    expect(reasonOf("")).toBe("Invalid schema: the schema must be valid JSON")
    for (const notObject of ['["title"]', '"title"', "null", "42"]) {
      expect(reasonOf(notObject)).toBe("Invalid schema: the schema must be a JSON object of field names and descriptions")
    }
    expect(reasonOf('{"a":{"b":"c"}}')).toBe(
      "Invalid schema: nested objects and arrays are not supported, each value must be a text description"
    )
    expect(reasonOf('{"a":["b"]}')).toBe(
      "Invalid schema: nested objects and arrays are not supported, each value must be a text description"
    )
    expect(reasonOf('{"a":1}')).toBe("Invalid schema: each field description must be a string")
    expect(reasonOf('{"a":null}')).toBe("Invalid schema: each field description must be a string")
    expect(reasonOf("{}")).toBe("Invalid schema: the schema must have at least one field")
    expect(reasonOf('{"":"x"}')).toBe("Invalid schema: field names must not be empty")
  })

  it.prop(
    "any object of 1-20 string fields within the limits parses to exactly its entries",
    [fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 64 }), fc.string({ maxLength: 1000 })), {
      minLength: 1,
      maxLength: 20,
      selector: ([name]) => name
    })],
    ([entries]) => {
      const valid = entries.filter(([name]) => name !== "__proto__" && name.trim() !== "" && !/^\d+$/.test(name))
      fc.pre(valid.length > 0)
      const parsed = parseSchemaFields(schemaOf(valid))
      expect(parsed).toEqual(Either.right(valid.map(([name, description]) => ({ name, description }))))
    }
  )
})
