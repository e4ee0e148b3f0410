/** JSON read as text, where JSON.parse would change what a client sent (src/domain/jsonText.ts). */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { canonical, eachMember, nestsDeeperThan, sortedKeysText, valueEnd } from "../../src/domain/jsonText.ts"

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

describe("canonical", () => {
  it("drops the spaces between tokens, keeps those in strings, and writes strings as JSON.stringify does; numbers stay as written", () => {
    expect(canonical(`{ "a" : [ 1.0 ,\n\t2e3 ] , "b c" : "d \\" e" }`)).toBe(`{"a":[1.0,2e3],"b c":"d \\" e"}`)
    // Python's json.dumps escapes every non-ASCII character: the same text as a client that does not.
    expect(canonical(`{"title": "caf\\u00e9 \\ud83d\\ude00 \\/"}`)).toBe(`{"title":"café 😀 /"}`)
  })

  it.prop("is JSON.stringify's text for any JSON value written with spaces, or with every character escaped", [fc.jsonValue()], ([value]) => {
    expect(canonical(JSON.stringify(value, null, 2))).toBe(JSON.stringify(value))
    const everyUnitEscaped = (text: string) => [...Array(text.length).keys()].map((i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, "0")}`).join("")
    const escaped = JSON.stringify(value).replace(/"(?:[^"\\]|\\.)*"/g, (token) => `"${everyUnitEscaped(JSON.parse(token) as string)}"`)
    expect(canonical(escaped)).toBe(JSON.stringify(value))
  })
})

describe("eachMember and valueEnd", () => {
  it("give each member's key, escapes read, and its value's text", () => {
    const text = `{ "a\u0062" : {"x":"}"} , "c":-1.5e3 ,"d":[1,"]"], "e" : null}`
    const members: Array<[string, string]> = []
    const end = eachMember(text, 0, (key, at) => {
      const valueAt = valueEnd(text, at)
      members.push([key, text.slice(at, valueAt)])
      return valueAt
    })
    expect([members, end]).toEqual([[["ab", `{"x":"}"}`], ["c", "-1.5e3"], ["d", `[1,"]"]`], ["e", "null"]], text.length])
  })
})

describe("sortedKeysText", () => {
  it("sorts every object's keys and keeps numbers as written", () => {
    expect(sortedKeysText(`{"b":{"d":[{"f":4,"e":3}],"c":2},"a":1850000000000000001}`))
      .toBe(`{"a":1850000000000000001,"b":{"c":2,"d":[{"e":3,"f":4}]}}`)
  })

  it.prop("is the same for any JSON value whatever the order of its keys", [fc.jsonValue()], ([value]) => {
    const reversed = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reversed)
        : v !== null && typeof v === "object"
        ? Object.fromEntries(Object.entries(v).reverse().map(([k, inner]) => [k, reversed(inner)]))
        : v
    expect(sortedKeysText(JSON.stringify(reversed(value)))).toBe(sortedKeysText(JSON.stringify(value)))
  })
})
