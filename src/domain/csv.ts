/**
 * CSV as RFC 4180 writes it (CRLF line ends, fields with a comma, quote or line break quoted,
 * quotes doubled), with one guard more: a cell that a spreadsheet would read as a formula (it
 * starts with `=`, `+`, `-`, `@`, a tab or a carriage return; OWASP "CSV injection") gets a
 * leading `'`, so a key name like `=HYPERLINK(...)` stays text.
 */
const formulaStart = /^[=+\-@\t\r]/

export const csvCell = (value: string | number | null): string => {
  if (value === null) return ""
  if (typeof value === "number") return String(value)
  const text = formulaStart.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, "\"\"")}"` : text
}

export const csvOf = (rows: ReadonlyArray<ReadonlyArray<string | number | null>>): string =>
  rows.map((row) => row.map(csvCell).join(",") + "\r\n").join("")
