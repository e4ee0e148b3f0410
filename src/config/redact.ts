/** How settings are shown where they are printed (the start-up summary, the CLI): no secret. */
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"

/** A URL without its password, to print. */
export const redactUrl = (url: string) => {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (parsed === undefined) return "<redacted>"
  if (parsed.password !== "") parsed.password = "redacted"
  return parsed.toString()
}

/** A secret setting as printed: whether it is set, never its value. */
export const secretShown = (secret: Option.Option<Redacted.Redacted>, whenUnset: string) =>
  Option.match(secret, { onNone: () => whenUnset, onSome: () => "<redacted>" })
