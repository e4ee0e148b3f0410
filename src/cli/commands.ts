/**
 * Runs the operator's commands (adminCommand.ts), for the CLI and for the running service's admin
 * route alike.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { AppConfig } from "../config/AppConfig.ts"
import { emailUsed } from "../domain/credentials.ts"
import { keyNameUsed } from "../domain/keyForm.ts"
import { AccountNotFound, InvalidCommand } from "../domain/errors.ts"
import { Subscription } from "../domain/models.ts"
import { Accounts } from "../services/Accounts.ts"
import { ApiKeys } from "../services/ApiKeys.ts"
import { Credits } from "../services/Credits.ts"
import { Users } from "../services/Users.ts"
import { dayMillis } from "../domain/time.ts"
import { type AccountId, decodeAccountId, decodeKeyId } from "../domain/ids.ts"
import { accountView, type AdminCommand, keyView, SubscriptionJson } from "./adminCommand.ts"

const defaultKeyLifetimeDays = 365

/** The address as stored (trimmed, lower case), or the dashboard's rule it breaks, named by its flag. */
const validEmail = (email: string) =>
  Effect.mapError(emailUsed(email), (invalid) => new InvalidCommand({ message: `--email: ${invalid.message}` }))

/** The id of the account `ref` names: its id as given, or the one account with that e-mail address. */
const accountIdOf = (ref: string) =>
  Effect.gen(function* () {
    if (!ref.includes("@")) return yield* decodeAccountId(ref)
    const found = yield* Effect.flatMap(Accounts, (accounts) => Effect.flatMap(validEmail(ref), (email) => accounts.list({ email })))
    if (found.length > 1) {
      return yield* new InvalidCommand({ message: `${found.length} accounts have the e-mail address ${ref}: give the account's id` })
    }
    const [account] = found
    return account === undefined ? yield* new AccountNotFound() : account.id
  })

/** The address, valid and not yet used by an account or a dashboard user: one address, one account. */
const unregisteredEmail = (raw: string) =>
  Effect.gen(function* () {
    const email = yield* validEmail(raw)
    const [account] = yield* Effect.flatMap(Accounts, (accounts) => accounts.list({ email }))
    if (account !== undefined) return yield* new InvalidCommand({ message: `--email: account ${account.id} has ${email} already` })
    if (yield* Effect.flatMap(Users, (users) => users.emailTaken(email))) {
      return yield* new InvalidCommand({ message: `--email: a dashboard user has ${email} already` })
    }
    return email
  })

const link = (path: string, token: string) => Effect.map(AppConfig, (config) => `${config.publicUrl}${path}?token=${token}`)

/** A new account and its initial credits, all or nothing. */
const createAccount = (name: string, email: string | undefined, initial = 0) =>
  Effect.gen(function* () {
    const account = yield* Effect.flatMap(Accounts, (accounts) => accounts.create({ name, email }))
    const credits = initial > 0 ? yield* Effect.flatMap(Credits, (credits) => credits.grant(account.id, initial, "initial credits")) : 0
    return { id: account.id, name: account.name, email: account.email, registeredAt: account.registeredAt.toISOString(), credits }
  })

/** Runs `effect` in one transaction; a database failure is a defect. */
const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(effect)).pipe(Effect.catchTag("SqlError", Effect.die))

/**
 * A new account, its credits, and a dashboard invitation for `email` (README, Operator CLI), all or nothing.
 * Prints the one-time token once, with the dashboard URL that accepts it.
 */
const invite = (command: Extract<AdminCommand, { readonly _tag: "AccountInvite" }>) =>
  Effect.gen(function* () {
    const email = yield* unregisteredEmail(command.email)
    const account = yield* createAccount(command.name, email, command.credits)
    return { ...account, invitation: yield* invitationTo(account.id, email) }
  }).pipe(transaction)

/** The invitation's one-time token, with the dashboard URL that accepts it. */
const invitationTo = (accountId: AccountId, email: string) =>
  Effect.gen(function* () {
    const invitation = yield* Effect.flatMap(Users, (users) => users.invite(accountId, email))
    return {
      token: invitation.token,
      path: `/dashboard/invitation?token=${invitation.token}`,
      url: yield* link("/dashboard/invitation", invitation.token),
      expiresAt: invitation.expiresAt.toISOString()
    }
  }).pipe(Effect.catchTags({
    FormInvalid: (invalid) => new InvalidCommand({ message: `--email: ${invalid.message}` }),
    EmailTaken: () => new InvalidCommand({ message: "a dashboard user with this e-mail address exists already" })
  }))

/**
 * A dashboard invitation for an existing account that has no dashboard user (one made by
 * `account create --email`): its e-mail address is taken, so sign-up refuses it and points here.
 */
const inviteUser = (ref: string) =>
  Effect.gen(function* () {
    const accountId = yield* accountIdOf(ref)
    const { email } = yield* Effect.flatMap(Accounts, (accounts) => accounts.find(accountId))
    if (email === null) return yield* new InvalidCommand({ message: "the account has no e-mail address: invite a new account with account invite" })
    return { accountId, email, invitation: yield* invitationTo(accountId, email) }
  }).pipe(transaction)

/** The account, its balance, how many keys it has, and its subscription. */
const showAccount = (ref: string) =>
  Effect.gen(function* () {
    const accountId = yield* accountIdOf(ref)
    const accounts = yield* Accounts
    const account = yield* accounts.find(accountId)
    const keys = yield* Effect.flatMap(ApiKeys, (keys) => keys.list(accountId))
    const subscription = yield* accounts.subscription(accountId)
    return {
      ...accountView({ ...account, keyCount: keys.length }),
      subscription: subscription._tag === "Some" ? Schema.encodeSync(SubscriptionJson)(subscription.value) : null
    }
  })

/** A one-time link to set a new password, for an operator to hand over (README, Operator CLI). */
const resetLink = (rawEmail: string) =>
  Effect.gen(function* () {
    const reset = yield* Effect.flatMap(Users, (users) => users.createPasswordReset(rawEmail))
    return {
      email: reset.user.email,
      accountId: reset.user.accountId,
      url: yield* link("/dashboard/reset-password", reset.token),
      expiresAt: reset.expiresAt.toISOString()
    }
  }).pipe(Effect.catchTag("FormInvalid", (invalid) => new InvalidCommand({ message: `EMAIL: ${invalid.message}` })))

/** Runs one command; the result is the JSON the CLI prints. */
export const runCommand = (command: AdminCommand) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const credits = yield* Credits
    const keys = yield* ApiKeys
    const now = yield* Clock.currentTimeMillis
    switch (command._tag) {
      case "AccountCreate": {
        const email = command.email === undefined ? undefined : yield* unregisteredEmail(command.email)
        return yield* transaction(createAccount(command.name, email, command.credits))
      }
      case "AccountInvite":
        return yield* invite(command)
      case "AccountList": {
        const email = command.email === undefined ? undefined : yield* validEmail(command.email)
        return (yield* accounts.list({ email })).map(accountView)
      }
      case "AccountShow":
        return yield* showAccount(command.accountId)
      case "AccountDelete": {
        const accountId = yield* accountIdOf(command.accountId)
        return yield* accounts.remove(accountId).pipe(Effect.as({ id: accountId, deleted: true }))
      }
      case "CreditsAdd": {
        const accountId = yield* accountIdOf(command.accountId)
        return { accountId, credits: yield* credits.grant(accountId, command.amount, "operator grant") }
      }
      case "KeyCreate": {
        if (command.expiresAt && command.expiresInDays) {
          return yield* new InvalidCommand({ message: "give --expires-at or --expires-in-days, not both" })
        }
        const expiredAt = command.expiresAt ?? new Date(now + (command.expiresInDays ?? defaultKeyLifetimeDays) * dayMillis)
        if (Number.isNaN(expiredAt.getTime()) || expiredAt.getTime() <= now) {
          return yield* new InvalidCommand({ message: "the expiry must be a valid date in the future" })
        }
        // The dashboard's rule: a blank name is no name (the key reads `User` on /api/tokens, §2.3).
        const name = yield* Either.mapLeft(keyNameUsed(command.name), (invalid) => new InvalidCommand({ message: `--name: ${invalid.message}` }))
        const accountId = yield* accountIdOf(command.accountId)
        const { key, token } = yield* keys.create(accountId, { name: name ?? undefined, expiredAt })
        return { id: key.id, key: token, name: key.name, createdAt: key.createdAt.toISOString(), expiredAt: key.expiredAt.toISOString() }
      }
      case "KeyList":
        return (yield* keys.list(yield* accountIdOf(command.accountId))).map((key) => keyView(key, now))
      case "KeyDelete":
        return yield* decodeKeyId(command.keyId).pipe(Effect.flatMap(keys.remove), Effect.as({ id: command.keyId, deleted: true }))
      case "SubscriptionSet": {
        const accountId = yield* accountIdOf(command.accountId)
        const subscription = new Subscription({
          planName: command.plan,
          planDescription: command.description,
          status: command.status,
          renewsAt: command.renewsAt ?? null,
          endsAt: command.endsAt ?? null
        })
        yield* accounts.setSubscription(accountId, subscription)
        return { accountId, subscription: Schema.encodeSync(SubscriptionJson)(subscription) }
      }
      case "SubscriptionClear": {
        const accountId = yield* accountIdOf(command.accountId)
        return yield* accounts.clearSubscription(accountId).pipe(Effect.as({ accountId, subscription: null }))
      }
      case "UserResetLink":
        return yield* resetLink(command.email)
      case "UserInvite":
        return yield* inviteUser(command.accountId)
    }
  }).pipe(Effect.withSpan("Admin.runCommand", { attributes: { command: command._tag } }))
