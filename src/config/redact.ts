/** How settings are shown where they are printed (the start-up summary, the CLI): no secret. */
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"

/** Query parameters that carry a secret: node-postgres and libpq read a password from `?password=`. */
const secretParameters = new Set(["password", "sslpassword", "pass", "token", "secret", "api_key", "apikey", "key"])

/** A URL without its password, in the user part or in the query, to print. */
export const redactUrl = (url: string) => {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (parsed === undefined) return "<redacted>"
  if (parsed.password !== "") parsed.password = "redacted"
  for (const name of [...parsed.searchParams.keys()]) {
    if (secretParameters.has(name.toLowerCase())) parsed.searchParams.set(name, "redacted")
  }
  return parsed.toString()
}

/** A secret setting as printed: whether it is set, never its value. */
export const secretShown = (secret: Option.Option<Redacted.Redacted>, whenUnset: string) =>
  Option.match(secret, { onNone: () => whenUnset, onSome: () => "<redacted>" })
