/**
 * The operator's commands as data (README, "Operator CLI"): what each one takes, how its failures
 * read, and the JSON its results print as. The CLI parses argv into one (parse.ts), then runs it
 * itself or sends it to the running service's admin route; either way commands.ts runs it.
 */
import * as Schema from "effect/Schema"
import type { UserNotFound } from "../domain/dashboard.ts"
import type { AccountNotFound, InvalidCommand, KeyNotFound } from "../domain/errors.ts"
import type { ApiKey } from "../domain/models.ts"
import type { AccountSummary } from "../services/Accounts.ts"

const Id = Schema.String
/** An account's id or its e-mail address (anything with an `@`). */
const AccountRef = Schema.String
const WholeNumber = Schema.Int

export const AdminCommand = Schema.Union(
  Schema.TaggedStruct("AccountCreate", {
    name: Schema.NonEmptyTrimmedString,
    email: Schema.optional(Schema.String),
    credits: Schema.optional(Schema.NonNegativeInt)
  }),
  Schema.TaggedStruct("AccountInvite", {
    email: Schema.String,
    name: Schema.NonEmptyTrimmedString,
    credits: Schema.optional(Schema.NonNegativeInt)
  }),
  Schema.TaggedStruct("AccountList", { email: Schema.optional(Schema.String) }),
  Schema.TaggedStruct("AccountShow", { accountId: AccountRef }),
  Schema.TaggedStruct("AccountDelete", { accountId: AccountRef }),
  Schema.TaggedStruct("CreditsAdd", { accountId: AccountRef, amount: WholeNumber }),
  Schema.TaggedStruct("KeyCreate", {
    accountId: AccountRef,
    name: Schema.optional(Schema.String),
    expiresAt: Schema.optional(Schema.Date),
    expiresInDays: Schema.optional(Schema.Positive)
  }),
  Schema.TaggedStruct("KeyList", { accountId: AccountRef }),
  Schema.TaggedStruct("KeyDelete", { keyId: Id }),
  Schema.TaggedStruct("SubscriptionSet", {
    accountId: AccountRef,
    plan: Schema.String,
    description: Schema.String,
    status: Schema.String,
    renewsAt: Schema.optional(Schema.Date),
    endsAt: Schema.optional(Schema.Date)
  }),
  Schema.TaggedStruct("SubscriptionClear", { accountId: AccountRef }),
  Schema.TaggedStruct("UserResetLink", { email: Schema.String }),
  Schema.TaggedStruct("UserInvite", { accountId: AccountRef })
)
export type AdminCommand = typeof AdminCommand.Type

export type AdminError = AccountNotFound | KeyNotFound | UserNotFound | InvalidCommand

/** How an operator reads an error. */
export const describeAdminError = (error: AdminError) => {
  switch (error._tag) {
    case "AccountNotFound":
      return "account not found"
    case "KeyNotFound":
      return `key not found: ${error.id}`
    case "UserNotFound":
      return `no dashboard user has the e-mail address ${error.email}`
    case "InvalidCommand":
      return error.message
  }
}

export const keyView = (key: ApiKey, now: number) => ({
  id: key.id,
  name: key.name,
  createdAt: key.createdAt.toISOString(),
  expiredAt: key.expiredAt.toISOString(),
  lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  status: key.expiredAt.getTime() > now ? "active" : "expired"
})

export const accountView = (account: AccountSummary) => ({
  id: account.id,
  name: account.name,
  email: account.email,
  registeredAt: account.registeredAt.toISOString(),
  credits: account.credits,
  keyCount: account.keyCount
})

/** A subscription as the commands print it. */
export const SubscriptionJson = Schema.Struct({
  planName: Schema.String,
  planDescription: Schema.String,
  status: Schema.String,
  renewsAt: Schema.NullOr(Schema.DateFromString),
  endsAt: Schema.NullOr(Schema.DateFromString)
})
