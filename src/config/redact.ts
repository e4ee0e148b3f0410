/** How settings are shown where they are printed (the start-up summary, the CLI): no secret. */
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"

/**
 * Words that make a query parameter a secret, in its name lowercased without punctuation:
 * `?password=` (node-postgres, libpq), `?access_token=`, `?api-key=`, `?X-Honeycomb-Team=`, a
 * signature. Showing a harmless one as redacted costs less than printing a secret.
 */
const secretWords = ["pass", "pwd", "token", "secret", "key", "auth", "sig", "credential", "team", "session", "cookie"]

const isSecretParameter = (name: string) => {
  const word = name.toLowerCase().replace(/[^a-z0-9]/g, "")
  return secretWords.some((secret) => word.includes(secret))
}

/**
 * A URL without its secrets, to print: the password; the user name too, but a database's, which is
 * a role worth showing (an http(s) or SMTP user name may be the token itself: GitHub's
 * `https://<token>:x-oauth-basic@`, Postmark's SMTP login); query parameters named as secrets; and
 * the fragment, where some put a token.
 */
export const redactUrl = (url: string) => {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (parsed === undefined) return "<redacted>"
  if (parsed.password !== "") parsed.password = "redacted"
  if (parsed.username !== "" && !/^postgres(ql)?:$/.test(parsed.protocol)) parsed.username = "redacted"
  for (const name of [...parsed.searchParams.keys()]) {
    if (isSecretParameter(name)) parsed.searchParams.set(name, "redacted")
  }
  if (parsed.hash !== "") parsed.hash = "redacted"
  return parsed.toString()
}

/** A secret setting as printed: whether it is set, never its value. */
export const secretShown = (secret: Option.Option<Redacted.Redacted>, whenUnset: string) =>
  Option.match(secret, { onNone: () => whenUnset, onSome: () => "<redacted>" })
