import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { csvCell, csvOf } from "../../src/domain/csv.ts"

/** RFC 4180 read back: quoted fields with doubled quotes, CRLF line ends. */
const parse = (text: string) => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let cell = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (quoted) {
      if (char === "\"" && text[i + 1] === "\"") (cell += "\"", i++)
      else if (char === "\"") quoted = false
      else cell += char
    } else if (char === "\"") quoted = true
    else if (char === ",") (row.push(cell), (cell = ""))
    else if (char === "\r" && text[i + 1] === "\n") (row.push(cell), rows.push(row), (row = []), (cell = ""), i++)
    else cell += char
  }
  return rows
}

describe("csv", () => {
  it("quotes what needs it, doubles quotes, ends lines with CRLF, and keeps formulas as text", () => {
    expect(csvOf([["a", "b,c", "say \"hi\"", "two\nlines", 42, null], ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "a=b"]])).toBe(
      "a,\"b,c\",\"say \"\"hi\"\"\",\"two\nlines\",42,\r\n'=1+1,'+1,'-1,'@SUM(A1),'\tx,a=b\r\n"
    )
    expect(csvCell("=HYPERLINK(\"http://x\",\"y\")")).toBe("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"")
  })

  it("property: any table reads back as written, a formula-like cell with its leading quote", () => {
    fc.assert(fc.property(fc.array(fc.array(fc.string({ unit: "binary" }), { minLength: 1, maxLength: 5 }), { maxLength: 5 }), (table) => {
      const guarded = table.map((row) => row.map((cell) => (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell)))
      expect(parse(csvOf(table))).toEqual(guarded)
    }))
  })
})
