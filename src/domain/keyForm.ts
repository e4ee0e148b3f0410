/** The API Keys page's form (spec §5; README, Dashboard: API keys): an optional name and an expiry, as pure rules. */
import * as Either from "effect/Either"
import { FormInvalid } from "./dashboard.ts"
import { characters } from "./schemaFields.ts"
import { dayMillis } from "./time.ts"


/** The presets the form offers, in days; one year is the default, as for `key create` on the CLI. */
export const expiryPresets = [
  { value: "30", label: "30 days", days: 30 },
  { value: "90", label: "90 days", days: 90 },
  { value: "365", label: "1 year", days: 365 }
] as const

export const defaultExpiry = "365"

/** The value of the choice that reads a date from the form instead. */
export const customExpiry = "date"

export const keyNameMaxLength = 100

/** A blank name is no name: the key reads `User` on `/api/tokens` (spec §2.3). */
export const keyNameUsed = (name: string | undefined): Either.Either<string | null, FormInvalid> => {
  const trimmed = (name ?? "").trim()
  if (trimmed === "") return Either.right(null)
  return characters(trimmed) > keyNameMaxLength
    ? Either.left(new FormInvalid({ field: "name", message: `Use at most ${keyNameMaxLength} characters` }))
    : Either.right(trimmed)
}

/**
 * A preset counts from now; a date (`YYYY-MM-DD`, what `<input type="date">` sends) means the key
 * works through that whole day in UTC, so it expires at the start of the next one. Messages write
 * dates as that control does, `YYYY-MM-DD`.
 */
export const keyExpiryUsed = (
  choice: string | undefined,
  date: string | undefined,
  now: Date
): Either.Either<Date, FormInvalid> => {
  const preset = expiryPresets.find((p) => p.value === (choice ?? defaultExpiry))
  if (preset !== undefined) return Either.right(new Date(now.getTime() + preset.days * dayMillis))
  if (choice !== customExpiry) return Either.left(new FormInvalid({ field: "expiry", message: "Choose an expiry" }))
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec((date ?? "").trim())
  const start = match === null ? Number.NaN : Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))
  const valid = match !== null && new Date(start).toISOString().startsWith(match[0])
  if (!valid) return Either.left(new FormInvalid({ field: "expires-on", message: "Enter the date as YYYY-MM-DD, for example 2030-12-31" }))
  const expiredAt = new Date(start + dayMillis)
  return expiredAt.getTime() > now.getTime()
    ? Either.right(expiredAt)
    : Either.left(new FormInvalid({ field: "expires-on", message: `Choose ${now.toISOString().slice(0, 10)} (today, UTC) or a later date` }))
}
