/**
 * "Copy as curl" on the Try it page (README "Dashboard"): the request the form just made, as a
 * shell command. Text fields go as `--form-string`, so curl sends them as they are (with `-F` a
 * value starting with `@` or `<` would be read as a file name).
 */

/** The fields of §4.1 a person typed, in the form's order; absent when left blank. */
export interface TryFields {
  readonly language?: string | undefined
  readonly keywords?: string | undefined
  readonly context?: string | undefined
  readonly schema?: string | undefined
}

/** POSIX single quotes: nothing inside is special but `'` itself, written `'\''`. */
export const shellQuoted = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`

export const tryCurl = (origin: string, fields: TryFields) =>
  [
    `curl ${shellQuoted(`${origin}/api/describe`)}`,
    `-H "Authorization: Bearer $API_KEY"`,
    "-F image=@FILE",
    ...(["language", "keywords", "context", "schema"] as const).flatMap((name) => {
      const value = fields[name]
      return value === undefined ? [] : [`--form-string ${shellQuoted(`${name}=${value}`)}`]
    })
  ].join(" \\\n  ")
