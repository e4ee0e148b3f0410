/** The rules of the dashboard's sign-up and log-in fields (README, Dashboard), as pure functions. */
import * as Either from "effect/Either"
import { FormInvalid } from "./dashboard.ts"
import { characters } from "./schemaFields.ts"

/**
 * NIST SP 800-63B: at least 8 characters, no composition rules. The upper bound only keeps the
 * hashing work per request bounded.
 */
export const passwordLength = { min: 8, max: 256 } as const

/** RFC 5321 caps a path at 256 octets, so an address is at most 254 characters. */
const emailMaxLength = 254

export const accountNameMaxLength = 100

/** Trimmed and in lower case, the form addresses are stored and compared in. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase()

/**
 * Deliberately loose (something@something, no spaces): the only real check of an address is a
 * message that arrives, and a strict pattern refuses valid addresses.
 */
export const emailUsed = (email: string): Either.Either<string, FormInvalid> => {
  const normalised = normaliseEmail(email)
  if (normalised === "") return Either.left(new FormInvalid({ field: "email", message: "Enter your e-mail address" }))
  if (normalised.length > emailMaxLength || !/^[^\s@]+@[^\s@]+$/.test(normalised)) {
    return Either.left(new FormInvalid({ field: "email", message: "Enter an e-mail address like name@example.com" }))
  }
  return Either.right(normalised)
}

/** Passwords are taken as typed: no trimming, every character counts. */
export const newPasswordUsed = (password: string): Either.Either<string, FormInvalid> => {
  const length = characters(password)
  if (length < passwordLength.min) {
    return Either.left(new FormInvalid({ field: "password", message: `Use at least ${passwordLength.min} characters` }))
  }
  if (length > passwordLength.max) {
    return Either.left(new FormInvalid({ field: "password", message: `Use at most ${passwordLength.max} characters` }))
  }
  return Either.right(password)
}

export const accountNameUsed = (name: string): Either.Either<string, FormInvalid> => {
  const trimmed = name.trim()
  if (trimmed === "") return Either.left(new FormInvalid({ field: "name", message: "Enter a name for the account" }))
  if (characters(trimmed) > accountNameMaxLength) {
    return Either.left(new FormInvalid({ field: "name", message: `Use at most ${accountNameMaxLength} characters` }))
  }
  return Either.right(trimmed)
}
