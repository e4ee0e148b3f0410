import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { parseHeaderValue } from "../../src/http/headerValue.ts"
import { clientStyles } from "../support/clientForms.ts"

const parsed = (input: string) => {
  const { essence, parameters } = parseHeaderValue(input)
  return { essence, parameters: Object.fromEntries(parameters) }
}

describe("parseHeaderValue (the WHATWG MIME type parameters)", () => {
  it("reads the essence trimmed and in lower case, values as sent", () => {
    expect(parsed(" \tTEXT/HTML ;CHARSET=GBK ")).toEqual({ essence: "text/html", parameters: { charset: "GBK" } })
    expect(parsed("form-data")).toEqual({ essence: "form-data", parameters: {} })
    expect(parsed("")).toEqual({ essence: "", parameters: {} })
  })

  it("an unquoted value runs to the next `;`, any printable character included, trailing whitespace dropped", () => {
    expect(parsed("text/html;charset=gbk(")).toEqual({ essence: "text/html", parameters: { charset: "gbk(" } })
    expect(parsed("text/html;x=(;charset=gbk")).toEqual({ essence: "text/html", parameters: { x: "(", charset: "gbk" } })
    expect(parsed("a/b; boundary=--aZ9!@#$%^&*() \t")).toEqual({ essence: "a/b", parameters: { boundary: "--aZ9!@#$%^&*()" } })
    expect(parsed("a/b;x= y z ")).toEqual({ essence: "a/b", parameters: { x: " y z" } })
  })

  it("a quoted value is unescaped, may hold `;`, and may lack its closing quote; what follows it is dropped", () => {
    expect(parsed('text/html;charset="gbk"')).toEqual({ essence: "text/html", parameters: { charset: "gbk" } })
    expect(parsed('text/html;charset="\\g\\b\\k"')).toEqual({ essence: "text/html", parameters: { charset: "gbk" } })
    expect(parsed('a/b;x=";y=z";y=w')).toEqual({ essence: "a/b", parameters: { x: ";y=z", y: "w" } })
    expect(parsed('text/html;charset="gbk')).toEqual({ essence: "text/html", parameters: { charset: "gbk" } })
    expect(parsed('text/html;charset="gbk"x;y=1')).toEqual({ essence: "text/html", parameters: { charset: "gbk", y: "1" } })
    expect(parsed('a/b;x="\\')).toEqual({ essence: "a/b", parameters: { x: "\\" } })
    expect(parsed('a/b;x=""')).toEqual({ essence: "a/b", parameters: { x: "" } })
  })

  it("skips what is not a parameter, and keeps the first of a name", () => {
    expect(parsed("a/b;;x;=1;y=;z =2;é=3;w=1;W=2")).toEqual({ essence: "a/b", parameters: { w: "1" } })
    expect(parsed("a/b;x=\u0001;y=\u20ac;z=\u00e9")).toEqual({ essence: "a/b", parameters: { z: "\u00e9" } })
    expect(parsed("a/b;x=1;x")).toEqual({ essence: "a/b", parameters: { x: "1" } })
  })

  it("a name like __proto__ is only a key", () => {
    const { parameters } = parseHeaderValue("a/b;__proto__=x;constructor=y")
    expect([...parameters]).toEqual([["__proto__", "x"], ["constructor", "y"]])
    expect(({} as Record<string, unknown>)["x"]).toBeUndefined()
  })

  it("folds only ASCII letters (the Kelvin sign is not a k)", () => {
    expect(parsed("a/b;\u212Aey=1").parameters).toEqual({})
  })

  it.prop("reads back every client's boundary", { boundaries: fc.tuple(...clientStyles.map((c) => c.boundary)) }, ({ boundaries }) => {
    for (const [i, client] of clientStyles.entries()) {
      const boundary = boundaries[i] ?? ""
      expect(parseHeaderValue(client.contentType(boundary)).parameters.get("boundary")).toBe(boundary)
    }
  })
})
