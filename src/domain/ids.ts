/**
 * Account and key ids, branded so that one cannot be passed for the other (spec §2.3 names them).
 * Ids from outside (URL paths, CLI arguments, token claims) are decoded here, once.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AccountNotFound, KeyNotFound } from "./errors.ts"

export const AccountId = Schema.UUID.pipe(Schema.brand("AccountId"))
export type AccountId = typeof AccountId.Type

export const KeyId = Schema.UUID.pipe(Schema.brand("KeyId"))
export type KeyId = typeof KeyId.Type

/** An account id from outside, or none when it is not a UUID (then no account has it). */
export const accountIdFrom: (input: string) => Option.Option<AccountId> = Schema.decodeUnknownOption(AccountId)

/** A key id from outside, or none when it is not a UUID (then no key has it). */
export const keyIdFrom: (input: string) => Option.Option<KeyId> = Schema.decodeUnknownOption(KeyId)

/** An account id from outside: one that is not a UUID names no account. */
export const decodeAccountId = (input: string) =>
  Option.match(accountIdFrom(input), {
    onNone: () => Effect.fail(new AccountNotFound()),
    onSome: Effect.succeed
  })

/** A key id from outside: one that is not a UUID names no key. */
export const decodeKeyId = (input: string) =>
  Option.match(keyIdFrom(input), {
    onNone: () => Effect.fail(new KeyNotFound({ id: input })),
    onSome: Effect.succeed
  })
