/**
 * The operator's commands (issue 2 §6), as data: the CLI parses argv into one, then runs it
 * itself or sends it to the running service's admin route, which runs it here too.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Schema } from "effect"
import { normaliseEmail } from "../domain/credentials.ts"
import { InvalidCommand } from "../domain/errors.ts"
import type { AccountNotFound, KeyNotFound } from "../domain/errors.ts"
import { Subscription } from "../domain/models.ts"
import type { ApiKey } from "../domain/models.ts"
import { Accounts } from "../services/Accounts.ts"
import { ApiKeys } from "../services/ApiKeys.ts"
import { Credits } from "../services/Credits.ts"
import { Users } from "../services/Users.ts"
import { dayMillis } from "../domain/time.ts"

const Id = Schema.String
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
  Schema.TaggedStruct("AccountDelete", { accountId: Id }),
  Schema.TaggedStruct("CreditsAdd", { accountId: Id, amount: WholeNumber }),
  Schema.TaggedStruct("KeyCreate", {
    accountId: Id,
    name: Schema.optional(Schema.String),
    expiresAt: Schema.optional(Schema.Date),
    expiresInDays: Schema.optional(Schema.Positive)
  }),
  Schema.TaggedStruct("KeyList", { accountId: Id }),
  Schema.TaggedStruct("KeyDelete", { keyId: Id }),
  Schema.TaggedStruct("SubscriptionSet", {
    accountId: Id,
    plan: Schema.String,
    description: Schema.String,
    status: Schema.String,
    renewsAt: Schema.optional(Schema.Date),
    endsAt: Schema.optional(Schema.Date)
  }),
  Schema.TaggedStruct("SubscriptionClear", { accountId: Id })
)
export type AdminCommand = typeof AdminCommand.Type

export type AdminError = AccountNotFound | KeyNotFound | InvalidCommand

/** How an operator reads an error. */
export const describeAdminError = (error: AdminError) => {
  switch (error._tag) {
    case "AccountNotFound":
      return "account not found"
    case "KeyNotFound":
      return `key not found: ${error.id}`
    case "InvalidCommand":
      return error.message
  }
}

const defaultKeyLifetimeDays = 365

const keyView = (key: ApiKey, now: number) => ({
  id: key.id,
  name: key.name,
  createdAt: key.createdAt.toISOString(),
  expiredAt: key.expiredAt.toISOString(),
  lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  status: key.expiredAt.getTime() > now ? "active" : "expired"
})

/**
 * A new account, its credits, and a dashboard invitation for `email` (issue 5 §1), all or nothing.
 * Prints the one-time token once, with the dashboard path that accepts it.
 */
const invite = (command: Extract<AdminCommand, { readonly _tag: "AccountInvite" }>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const users = yield* Users
    return yield* Effect.gen(function* () {
      const account = yield* Effect.flatMap(Accounts, (accounts) => accounts.create({ name: command.name, email: normaliseEmail(command.email) }))
      const initial = command.credits ?? 0
      const balance = initial > 0 ? yield* Effect.flatMap(Credits, (credits) => credits.grant(account.id, initial, "initial credits")) : 0
      const invitation = yield* users.invite(account.id, command.email)
      return {
        id: account.id,
        name: account.name,
        email: invitation.user.email,
        registeredAt: account.registeredAt.toISOString(),
        credits: balance,
        invitation: {
          token: invitation.token,
          path: `/dashboard/invitation?token=${invitation.token}`,
          expiresAt: invitation.expiresAt.toISOString()
        }
      }
    }).pipe(
      Effect.catchTags({
        FormInvalid: (invalid) => new InvalidCommand({ message: `--email: ${invalid.message}` }),
        EmailTaken: () => new InvalidCommand({ message: "a dashboard user with this e-mail address exists already" })
      }),
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )
  })

/** Runs one command; the result is the JSON the CLI prints. */
export const runCommand = (command: AdminCommand) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const credits = yield* Credits
    const keys = yield* ApiKeys
    const now = yield* Clock.currentTimeMillis
    switch (command._tag) {
      case "AccountCreate": {
        const sql = yield* SqlClient.SqlClient
        return yield* Effect.gen(function* () {
          const account = yield* accounts.create({ name: command.name, email: command.email })
          const balance = command.credits ? yield* credits.grant(account.id, command.credits, "initial credits") : 0
          return { id: account.id, name: account.name, email: account.email, registeredAt: account.registeredAt.toISOString(), credits: balance }
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      }
      case "AccountInvite":
        return yield* invite(command)
      case "AccountDelete":
        return yield* accounts.remove(command.accountId).pipe(Effect.as({ id: command.accountId, deleted: true }))
      case "CreditsAdd":
        return { accountId: command.accountId, credits: yield* credits.grant(command.accountId, command.amount, "operator grant") }
      case "KeyCreate": {
        if (command.expiresAt && command.expiresInDays) {
          return yield* new InvalidCommand({ message: "give --expires-at or --expires-in-days, not both" })
        }
        const expiredAt = command.expiresAt ?? new Date(now + (command.expiresInDays ?? defaultKeyLifetimeDays) * dayMillis)
        if (Number.isNaN(expiredAt.getTime()) || expiredAt.getTime() <= now) {
          return yield* new InvalidCommand({ message: "the expiry must be a valid date in the future" })
        }
        const { key, token } = yield* keys.create(command.accountId, { name: command.name, expiredAt })
        return { id: key.id, key: token, name: key.name, createdAt: key.createdAt.toISOString(), expiredAt: key.expiredAt.toISOString() }
      }
      case "KeyList":
        return (yield* keys.list(command.accountId)).map((key) => keyView(key, now))
      case "KeyDelete":
        return yield* keys.remove(command.keyId).pipe(Effect.as({ id: command.keyId, deleted: true }))
      case "SubscriptionSet": {
        const subscription = new Subscription({
          planName: command.plan,
          planDescription: command.description,
          status: command.status,
          renewsAt: command.renewsAt ?? null,
          endsAt: command.endsAt ?? null
        })
        yield* accounts.setSubscription(command.accountId, subscription)
        return { accountId: command.accountId, subscription: Schema.encodeSync(SubscriptionJson)(subscription) }
      }
      case "SubscriptionClear":
        return yield* accounts.clearSubscription(command.accountId).pipe(
          Effect.as({ accountId: command.accountId, subscription: null })
        )
    }
  }).pipe(Effect.withSpan("Admin.runCommand", { attributes: { command: command._tag } }))

const SubscriptionJson = Schema.Struct({
  planName: Schema.String,
  planDescription: Schema.String,
  status: Schema.String,
  renewsAt: Schema.NullOr(Schema.DateFromString),
  endsAt: Schema.NullOr(Schema.DateFromString)
})
