import { describe, expect, it, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema, TestClock } from "effect"
import { describeAdminError } from "../../src/cli/adminCommand.ts"
import { runCommand } from "../../src/cli/commands.ts"
import type { AdminCommand } from "../../src/cli/adminCommand.ts"
import { Accounts } from "../../src/services/Accounts.ts"
import { ApiKeys } from "../../src/services/ApiKeys.ts"
import { Credits } from "../../src/services/Credits.ts"
import { Users } from "../../src/services/Users.ts"
import { tokenHash } from "../../src/services/secrets.ts"
import { backends, postgresSkipReason, postgresUrl } from "../support/database.ts"
import { servicesOn } from "../support/services.ts"
import { AccountId } from "../../src/domain/ids.ts"

const day = 24 * 60 * 60 * 1000
const now = Date.parse("2026-03-01T12:00:00.000Z")
const iso = (millis: number) => new Date(millis).toISOString()
const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)

/** What the operator reads when a command fails; a defect (a crash) shows as such. */
const refusal = (command: AdminCommand) =>
  runCommand(command).pipe(
    Effect.flip,
    Effect.map((error) => ({ _tag: error._tag, message: describeAdminError(error) })),
    Effect.catchAllDefect((defect) => Effect.succeed({ _tag: "defect", message: String(defect) }))
  )

const accountNotFound = { _tag: "AccountNotFound", message: "account not found" }

const idOf = (result: unknown) => Schema.decodeUnknownSync(Schema.Struct({ id: Schema.String }))(result).id

/** `account create --name Ada [--credits N]` at `now`; the new account's id. */
const newAccount = (credits?: number) =>
  TestClock.setTime(now).pipe(
    Effect.zipRight(runCommand({ _tag: "AccountCreate", name: "Ada", ...(credits === undefined ? {} : { credits }) })),
    Effect.map(idOf)
  )

const balanceOf = (accountId: string) =>
  Effect.flatMap(Accounts, (accounts) => accounts.find(AccountId.make(accountId))).pipe(Effect.map((account) => account.credits))

const ledgerOf = (accountId: string) =>
  Effect.flatMap(Credits, (credits) => credits.ledger(AccountId.make(accountId))).pipe(
    Effect.map((entries) => entries.map(({ amount, reason }) => ({ amount, reason })))
  )

const authenticatedAccount = (key: string) =>
  Effect.flatMap(ApiKeys, (keys) => keys.authenticate(`Bearer ${key}`)).pipe(Effect.map(({ account }) => account.id))

const KeyPrinted = Schema.Struct({ id: Schema.String, key: Schema.String })

for (const backend of backends) {
  layer(servicesOn(backend))(`runCommand on ${backend.name}`, (it) => {
    describe("account", () => {
      it.effect("create prints the account with a zero balance and writes no ledger row", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const result = yield* runCommand({ _tag: "AccountCreate", name: "Ada" })
          expect(result).toStrictEqual({ id: uuid, name: "Ada", email: null, registeredAt: iso(now), credits: 0 })
          const withEmail = yield* runCommand({ _tag: "AccountCreate", name: "Bob", email: "bob@example.com" })
          expect(withEmail).toStrictEqual({ id: uuid, name: "Bob", email: "bob@example.com", registeredAt: iso(now), credits: 0 })
          expect(yield* ledgerOf(idOf(result))).toEqual([])
          expect(yield* balanceOf(idOf(result))).toBe(0)
        }))

      it.effect("create --credits 3 prints a balance of 3, explained by one `initial credits` ledger row", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const result = yield* runCommand({ _tag: "AccountCreate", name: "Ada", credits: 3 })
          expect(result).toStrictEqual({ id: uuid, name: "Ada", email: null, registeredAt: iso(now), credits: 3 })
          expect(yield* ledgerOf(idOf(result))).toEqual([{ amount: 3, reason: "initial credits" }])
          expect(yield* balanceOf(idOf(result))).toBe(3)
        }))

      it.effect("delete answers `deleted`; afterwards every command on the account finds no account", () =>
        Effect.gen(function* () {
          const accountId = yield* newAccount(5)
          expect(yield* runCommand({ _tag: "AccountDelete", accountId })).toStrictEqual({ id: accountId, deleted: true })
          expect(yield* refusal({ _tag: "AccountDelete", accountId })).toEqual(accountNotFound)
          expect(yield* refusal({ _tag: "CreditsAdd", accountId, amount: 1 })).toEqual(accountNotFound)
          expect(yield* refusal({ _tag: "KeyCreate", accountId })).toEqual(accountNotFound)
          expect(yield* refusal({ _tag: "KeyList", accountId })).toEqual(accountNotFound)
          expect(yield* refusal({ _tag: "SubscriptionSet", accountId, plan: "Pro", description: "", status: "active" }))
            .toEqual(accountNotFound)
          expect(yield* refusal({ _tag: "SubscriptionClear", accountId })).toEqual(accountNotFound)
        }))

      it.effect("delete of an unknown or malformed id finds no account", () =>
        Effect.gen(function* () {
          expect(yield* refusal({ _tag: "AccountDelete", accountId: crypto.randomUUID() })).toEqual(accountNotFound)
          expect(yield* refusal({ _tag: "AccountDelete", accountId: "not-an-id" })).toEqual(accountNotFound)
        }))
    })

    describe("account list, account show, accounts by e-mail", () => {
      const view = (id: string, name: string, email: string | null, credits: number, keyCount: number) =>
        ({ id, name, email, registeredAt: iso(now), credits, keyCount })

      it.effect("list: every account not deleted, oldest first, with balance, e-mail, creation and key count; --email filters", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const ada = idOf(yield* runCommand({ _tag: "AccountCreate", name: "Ada", email: "Ada@List.example", credits: 3 }))
          const bob = idOf(yield* runCommand({ _tag: "AccountCreate", name: "Bob" }))
          const gone = idOf(yield* runCommand({ _tag: "AccountCreate", name: "Gone", email: "gone@list.example" }))
          yield* runCommand({ _tag: "KeyCreate", accountId: ada })
          const deletedKey = idOf(yield* runCommand({ _tag: "KeyCreate", accountId: ada }))
          yield* runCommand({ _tag: "KeyDelete", keyId: deletedKey })
          yield* runCommand({ _tag: "AccountDelete", accountId: gone })
          const listed = yield* runCommand({ _tag: "AccountList" })
          expect(listed).toEqual(expect.arrayContaining([view(ada, "Ada", "ada@list.example", 3, 1), view(bob, "Bob", null, 0, 0)]))
          expect(JSON.stringify(listed)).not.toContain(gone)
          expect(yield* runCommand({ _tag: "AccountList", email: " ADA@list.EXAMPLE " })).toStrictEqual([view(ada, "Ada", "ada@list.example", 3, 1)])
          expect(yield* runCommand({ _tag: "AccountList", email: "gone@list.example" })).toStrictEqual([])
          expect(yield* refusal({ _tag: "AccountList", email: "not an address" })).toEqual({
            _tag: "InvalidCommand", message: "--email: Enter an e-mail address like name@example.com"
          })
        }))

      it.effect("show by id or by e-mail: the account, its key count and its subscription", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const accountId = idOf(yield* runCommand({ _tag: "AccountCreate", name: "Ada", email: "ada@show.example", credits: 2 }))
          yield* runCommand({ _tag: "KeyCreate", accountId })
          const shown = { ...view(accountId, "Ada", "ada@show.example", 2, 1), subscription: null }
          expect(yield* runCommand({ _tag: "AccountShow", accountId })).toStrictEqual(shown)
          expect(yield* runCommand({ _tag: "AccountShow", accountId: "ADA@show.example" })).toStrictEqual(shown)
          yield* runCommand({ _tag: "SubscriptionSet", accountId: "ada@show.example", plan: "Pro", description: "<p>x</p>", status: "active" })
          expect(yield* runCommand({ _tag: "AccountShow", accountId })).toMatchObject({ subscription: { planName: "Pro", status: "active" } })
          expect(yield* refusal({ _tag: "AccountShow", accountId: "nobody@example.com" })).toEqual(accountNotFound)
          expect(yield* refusal({ _tag: "AccountShow", accountId: crypto.randomUUID() })).toEqual(accountNotFound)
        }))

      it.effect("every command that takes an account id takes its e-mail address, and answers with the id", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const email = "ada@every.example"
          const accountId = idOf(yield* runCommand({ _tag: "AccountCreate", name: "Ada", email }))
          expect(yield* runCommand({ _tag: "CreditsAdd", accountId: email, amount: 5 })).toStrictEqual({ accountId, credits: 5 })
          const key = Schema.decodeUnknownSync(KeyPrinted)(yield* runCommand({ _tag: "KeyCreate", accountId: email }))
          expect(yield* authenticatedAccount(key.key)).toBe(accountId)
          expect(yield* runCommand({ _tag: "KeyList", accountId: email })).toMatchObject([{ id: key.id }])
          expect(yield* runCommand({ _tag: "SubscriptionClear", accountId: email })).toStrictEqual({ accountId, subscription: null })
          expect(yield* runCommand({ _tag: "AccountDelete", accountId: email })).toStrictEqual({ id: accountId, deleted: true })
          expect(yield* refusal({ _tag: "CreditsAdd", accountId: email, amount: 1 })).toEqual(accountNotFound)
        }))

      it.effect("an e-mail address two accounts share (from before addresses were unique) is refused: give the id", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts
          const first = yield* accounts.create({ name: "One", email: "shared@example.com" })
          yield* accounts.create({ name: "Two", email: "shared@example.com" })
          expect(yield* refusal({ _tag: "CreditsAdd", accountId: "shared@example.com", amount: 5 })).toEqual({
            _tag: "InvalidCommand", message: "2 accounts have the e-mail address shared@example.com: give the account's id"
          })
          expect(yield* balanceOf(first.id)).toBe(0)
        }))
    })

    describe("e-mail addresses: validated, one account each", () => {
      it.effect("account create refuses an invalid --email, and one an account or a dashboard user has; nothing is created", () =>
        Effect.gen(function* () {
          yield* runCommand({ _tag: "AccountCreate", name: "Ada", email: "ada@unique.example" })
          yield* runCommand({ _tag: "AccountInvite", name: "Bob", email: "bob@unique.example" })
          const before = (yield* Effect.flatMap(Accounts, (accounts) => accounts.list())).length
          expect(yield* refusal({ _tag: "AccountCreate", name: "X", email: "not an address" })).toEqual({
            _tag: "InvalidCommand", message: "--email: Enter an e-mail address like name@example.com"
          })
          const taken = yield* refusal({ _tag: "AccountCreate", name: "X", email: " ADA@unique.example", credits: 5 })
          expect(taken).toEqual({ _tag: "InvalidCommand", message: expect.stringMatching(/^--email: account [0-9a-f-]{36} has ada@unique.example already$/) })
          expect((yield* refusal({ _tag: "AccountInvite", name: "X", email: "ada@unique.example" }))._tag).toBe("InvalidCommand")
          // A dashboard user whose account has another address (or none) still owns the address.
          const sql = yield* SqlClient.SqlClient
          yield* sql`UPDATE accounts SET email = NULL WHERE email = 'bob@unique.example'`
          expect(yield* refusal({ _tag: "AccountCreate", name: "X", email: "bob@unique.example" })).toEqual({
            _tag: "InvalidCommand", message: "--email: a dashboard user has bob@unique.example already"
          })
          expect((yield* Effect.flatMap(Accounts, (accounts) => accounts.list())).length).toBe(before)
        }))
    })

    describe("links: invitations and password resets", () => {
      const Invited = Schema.Struct({ invitation: Schema.Struct({ token: Schema.String, url: Schema.String }) })

      it.effect("account invite prints the invitation's full URL under PUBLIC_URL", () =>
        Effect.gen(function* () {
          const invited = Schema.decodeUnknownSync(Invited)(yield* runCommand({ _tag: "AccountInvite", name: "Ada", email: "ada@invite.example" }))
          expect(invited.invitation.url).toBe(`https://images.example.com/dashboard/invitation?token=${invited.invitation.token}`)
        }))

      it.effect("user invite gives an account made with an address (whose sign-up is refused) a dashboard invitation; one with a user or no address is refused", () =>
        Effect.gen(function* () {
          const made = idOf(yield* runCommand({ _tag: "AccountCreate", name: "Shop", email: "shop@made.example", credits: 2 }))
          const invited = yield* runCommand({ _tag: "UserInvite", accountId: "shop@made.example" })
          expect(invited).toMatchObject({ accountId: made, email: "shop@made.example" })
          const { invitation } = Schema.decodeUnknownSync(Invited)(invited)
          expect(invitation.url).toBe(`https://images.example.com/dashboard/invitation?token=${invitation.token}`)
          expect(yield* Effect.flatMap(Users, (users) => users.pendingInvitation(invitation.token))).toEqual({ email: "shop@made.example" })
          expect(yield* refusal({ _tag: "UserInvite", accountId: made }))
            .toEqual({ _tag: "InvalidCommand", message: "a dashboard user with this e-mail address exists already" })
          const bare = idOf(yield* runCommand({ _tag: "AccountCreate", name: "No address" }))
          expect(yield* refusal({ _tag: "UserInvite", accountId: bare }))
            .toEqual({ _tag: "InvalidCommand", message: "the account has no e-mail address: invite a new account with account invite" })
        }))

      it.effect("user reset-link prints a one-day link under PUBLIC_URL; only the token's hash is stored", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const accountId = idOf(yield* runCommand({ _tag: "AccountInvite", name: "Ada", email: "ada@reset.example" }))
          const printed = yield* runCommand({ _tag: "UserResetLink", email: " Ada@Reset.example" })
          expect(printed).toStrictEqual({
            email: "ada@reset.example",
            accountId,
            url: expect.stringMatching(/^https:\/\/images\.example\.com\/dashboard\/reset-password\?token=[\w-]{43}$/),
            expiresAt: iso(now + day)
          })
          const token = new URL(Schema.decodeUnknownSync(Schema.Struct({ url: Schema.String }))(printed).url).searchParams.get("token")!
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ tokenHash: string; usedAt: Date | null }>`SELECT token_hash, used_at FROM password_resets
            WHERE user_id = (SELECT id FROM dashboard_users WHERE email = 'ada@reset.example')`
          expect(rows).toEqual([{ tokenHash: tokenHash(token), usedAt: null }])
        }))

      it.effect("user reset-link refuses an invalid address and one no dashboard user has; nothing is stored", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const stored = sql`SELECT count(*)::int AS count FROM password_resets`
          const before = yield* stored
          yield* runCommand({ _tag: "AccountCreate", name: "No dashboard", email: "plain@reset.example" })
          expect(yield* refusal({ _tag: "UserResetLink", email: "plain@reset.example" })).toEqual({
            _tag: "UserNotFound", message: "no dashboard user has the e-mail address plain@reset.example"
          })
          expect(yield* refusal({ _tag: "UserResetLink", email: "nope" })).toEqual({
            _tag: "InvalidCommand", message: "EMAIL: Enter an e-mail address like name@example.com"
          })
          expect(yield* stored).toEqual(before)
        }))
    })

    describe("credits add", () => {
      it.effect("prints the new balance; a negative amount within the balance removes credits; each is in the ledger", () =>
        Effect.gen(function* () {
          const accountId = yield* newAccount(3)
          yield* TestClock.adjust(1000)
          expect(yield* runCommand({ _tag: "CreditsAdd", accountId, amount: 5 })).toStrictEqual({ accountId, credits: 8 })
          yield* TestClock.adjust(1000)
          expect(yield* runCommand({ _tag: "CreditsAdd", accountId, amount: -8 })).toStrictEqual({ accountId, credits: 0 })
          expect(yield* ledgerOf(accountId)).toEqual([
            { amount: 3, reason: "initial credits" },
            { amount: 5, reason: "operator grant" },
            { amount: -8, reason: "operator grant" }
          ])
        }))

      it.effect("refuses to take the balance below zero, or a zero amount, and changes nothing", () =>
        Effect.gen(function* () {
          const accountId = yield* newAccount(3)
          expect(yield* refusal({ _tag: "CreditsAdd", accountId, amount: -4 })).toEqual({
            _tag: "InvalidCommand", message: "the balance is 3, it cannot go below 0"
          })
          expect(yield* refusal({ _tag: "CreditsAdd", accountId, amount: 0 })).toEqual({
            _tag: "InvalidCommand", message: "the amount must be a non-zero whole number"
          })
          // A credit held by a request in flight cannot be taken away from under it.
          yield* Effect.flatMap(Credits, (credits) => credits.reserve(AccountId.make(accountId), null))
          expect(yield* refusal({ _tag: "CreditsAdd", accountId, amount: -3 })).toEqual({
            _tag: "InvalidCommand", message: "the balance is 3, it cannot go below what requests in flight hold"
          })
          expect(yield* balanceOf(accountId)).toBe(3)
          expect(yield* ledgerOf(accountId)).toEqual([{ amount: 3, reason: "initial credits" }])
        }))

      it.effect("to an unknown or malformed account id finds no account", () =>
        Effect.gen(function* () {
          expect(yield* refusal({ _tag: "CreditsAdd", accountId: crypto.randomUUID(), amount: 5 })).toEqual(accountNotFound)
          expect(yield* refusal({ _tag: "CreditsAdd", accountId: "not-an-id", amount: 5 })).toEqual(accountNotFound)
          expect(yield* refusal({ _tag: "CreditsAdd", accountId: "", amount: 5 })).toEqual(accountNotFound)
        }))

      // `accounts.credits` and `credit_ledger.amount` are PostgreSQL `integer`s: past 2,147,483,647
      // the UPDATE fails and the command dies (the CLI prints a stack trace, the admin route a 500).
      it.effect("a balance past the largest the database holds is refused with InvalidCommand, not a crash", () =>
        Effect.gen(function* () {
          const accountId = yield* newAccount(3)
          expect((yield* refusal({ _tag: "CreditsAdd", accountId, amount: 3_000_000_000 }))._tag).toBe("InvalidCommand")
          expect(yield* runCommand({ _tag: "CreditsAdd", accountId, amount: 2_000_000_000 }))
            .toStrictEqual({ accountId, credits: 2_000_000_003 })
          expect((yield* refusal({ _tag: "CreditsAdd", accountId, amount: 200_000_000 }))._tag).toBe("InvalidCommand")
          expect(yield* balanceOf(accountId)).toBe(2_000_000_003)
          expect((yield* refusal({ _tag: "AccountCreate", name: "Ada", credits: 3_000_000_000 }))._tag).toBe("InvalidCommand")
        }))
    })

    describe("key", () => {
      it.effect("create: valid one year from now by default, and the printed key authenticates the account", () =>
        Effect.gen(function* () {
          const accountId = yield* newAccount()
          const result = yield* runCommand({ _tag: "KeyCreate", accountId })
          expect(result).toStrictEqual({
            id: uuid, key: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/), name: null,
            createdAt: iso(now), expiredAt: iso(now + 365 * day)
          })
          expect(yield* authenticatedAccount(Schema.decodeUnknownSync(KeyPrinted)(result).key)).toBe(accountId)
        }))

      it.effect("create --expires-in-days and --expires-at set the expiry; --name names the key", () =>
        Effect.gen(function* () {
          const accountId = yield* newAccount()
          expect(yield* runCommand({ _tag: "KeyCreate", accountId, name: "CMS plugin", expiresInDays: 30 })).toMatchObject({
            name: "CMS plugin", createdAt: iso(now), expiredAt: iso(now + 30 * day)
          })
          const expiresAt = new Date("2030-01-01T00:00:00.000Z")
          expect(yield* runCommand({ _tag: "KeyCreate", accountId, expiresAt })).toMatchObject({
            name: null, createdAt: iso(now), expiredAt: "2030-01-01T00:00:00.000Z"
          })
        }))

      it.effect("create --name: trimmed as the dashboard's form does; a blank one is no name, one over 100 characters refused", () =>
        Effect.gen(function* () {
          const accountId = yield* newAccount()
          expect(yield* runCommand({ _tag: "KeyCreate", accountId, name: "  CMS plugin " })).toMatchObject({ name: "CMS plugin" })
          expect(yield* runCommand({ _tag: "KeyCreate", accountId, name: "" })).toMatchObject({ name: null })
          expect(yield* runCommand({ _tag: "KeyCreate", accountId, name: "   " })).toMatchObject({ name: null })
          expect(yield* refusal({ _tag: "KeyCreate", accountId, name: "k".repeat(101) }))
            .toEqual({ _tag: "InvalidCommand", message: "--name: Use at most 100 characters" })
        }))

      it.effect("create refuses an expiry now or in the past, one out of range, and both expiry options at once", () =>
        Effect.gen(function* () {
          const accountId = yield* newAccount()
          const pastExpiry = { _tag: "InvalidCommand", message: "the expiry must be a valid date in the future" }
          expect(yield* refusal({ _tag: "KeyCreate", accountId, expiresAt: new Date(now - day) })).toEqual(pastExpiry)
          expect(yield* refusal({ _tag: "KeyCreate", accountId, expiresAt: new Date(now) })).toEqual(pastExpiry)
          expect(yield* refusal({ _tag: "KeyCreate", accountId, expiresInDays: 1e12 })).toEqual(pastExpiry)
          expect(yield* refusal({ _tag: "KeyCreate", accountId, expiresAt: new Date(now + day), expiresInDays: 3 })).toEqual({
            _tag: "InvalidCommand", message: "give --expires-at or --expires-in-days, not both"
          })
          expect(yield* runCommand({ _tag: "KeyList", accountId })).toEqual([])
        }))

      it.effect("create for an unknown account finds no account", () =>
        Effect.gen(function* () {
          expect(yield* refusal({ _tag: "KeyCreate", accountId: crypto.randomUUID() })).toEqual(accountNotFound)
          expect(yield* refusal({ _tag: "KeyCreate", accountId: "not-an-id" })).toEqual(accountNotFound)
        }))

      it.effect("list: each key active until its expiry, then expired, with when it was last used", () =>
        Effect.gen(function* () {
          const accountId = yield* newAccount()
          const short = idOf(yield* runCommand({ _tag: "KeyCreate", accountId, name: "trial", expiresInDays: 1 }))
          yield* TestClock.adjust(1000)
          const long = Schema.decodeUnknownSync(KeyPrinted)(yield* runCommand({ _tag: "KeyCreate", accountId }))
          yield* TestClock.adjust(1000)
          yield* authenticatedAccount(long.key)
          const view = (id: string, name: string | null, created: number, expired: number, lastUsedAt: string | null) =>
            ({ id, name, createdAt: iso(created), expiredAt: iso(expired), lastUsedAt })
          expect(yield* runCommand({ _tag: "KeyList", accountId })).toStrictEqual([
            { ...view(short, "trial", now, now + day, null), status: "active" },
            { ...view(long.id, null, now + 1000, now + 1000 + 365 * day, iso(now + 2000)), status: "active" }
          ])
          yield* TestClock.adjust(day)
          expect(yield* runCommand({ _tag: "KeyList", accountId })).toStrictEqual([
            { ...view(short, "trial", now, now + day, null), status: "expired" },
            { ...view(long.id, null, now + 1000, now + 1000 + 365 * day, iso(now + 2000)), status: "active" }
          ])
        }))

      it.effect("list of an unknown account finds no account; of an account without keys is empty", () =>
        Effect.gen(function* () {
          expect(yield* refusal({ _tag: "KeyList", accountId: crypto.randomUUID() })).toEqual(accountNotFound)
          expect(yield* runCommand({ _tag: "KeyList", accountId: yield* newAccount() })).toStrictEqual([])
        }))

      it.effect("delete answers `deleted`; the key stops working and leaves the list; a second delete finds no key", () =>
        Effect.gen(function* () {
          const accountId = yield* newAccount()
          const kept = idOf(yield* runCommand({ _tag: "KeyCreate", accountId, name: "kept" }))
          const gone = Schema.decodeUnknownSync(KeyPrinted)(yield* runCommand({ _tag: "KeyCreate", accountId }))
          expect(yield* runCommand({ _tag: "KeyDelete", keyId: gone.id })).toStrictEqual({ id: gone.id, deleted: true })
          const rejected = yield* Effect.flip(authenticatedAccount(gone.key))
          expect(rejected._tag).toBe("ApiKeyRevoked")
          expect(yield* runCommand({ _tag: "KeyList", accountId })).toMatchObject([{ id: kept, name: "kept" }])
          expect(yield* refusal({ _tag: "KeyDelete", keyId: gone.id })).toEqual({
            _tag: "KeyNotFound", message: `key not found: ${gone.id}`
          })
          expect(yield* refusal({ _tag: "KeyDelete", keyId: "not-an-id" })).toEqual({
            _tag: "KeyNotFound", message: "key not found: not-an-id"
          })
        }))
    })

    describe("subscription", () => {
      it.effect("set prints the subscription with ISO dates or null, replaces an earlier one; clear prints null", () =>
        Effect.gen(function* () {
          const accountId = yield* newAccount()
          const subscriptionOf = Effect.flatMap(Accounts, (accounts) => accounts.subscription(AccountId.make(accountId)))
          expect(yield* runCommand({
            _tag: "SubscriptionSet", accountId, plan: "Pro", description: "<p>1,000 images a month</p>", status: "active",
            renewsAt: new Date("2026-04-01T00:00:00.000Z")
          })).toStrictEqual({
            accountId,
            subscription: {
              planName: "Pro", planDescription: "<p>1,000 images a month</p>", status: "active",
              renewsAt: "2026-04-01T00:00:00.000Z", endsAt: null
            }
          })
          expect(yield* runCommand({
            _tag: "SubscriptionSet", accountId, plan: "Basic", description: "<p>100</p>", status: "cancelled",
            endsAt: new Date("2026-03-31T23:59:59.000Z")
          })).toStrictEqual({
            accountId,
            subscription: {
              planName: "Basic", planDescription: "<p>100</p>", status: "cancelled",
              renewsAt: null, endsAt: "2026-03-31T23:59:59.000Z"
            }
          })
          expect(Option.map(yield* subscriptionOf, (s) => s.planName)).toEqual(Option.some("Basic"))
          expect(yield* runCommand({ _tag: "SubscriptionClear", accountId })).toStrictEqual({ accountId, subscription: null })
          expect(Option.isNone(yield* subscriptionOf)).toBe(true)
        }))

      it.effect("set and clear on an unknown account find no account", () =>
        Effect.gen(function* () {
          const accountId = crypto.randomUUID()
          expect(yield* refusal({ _tag: "SubscriptionSet", accountId, plan: "Pro", description: "", status: "active" }))
            .toEqual(accountNotFound)
          expect(yield* refusal({ _tag: "SubscriptionClear", accountId: "not-an-id" })).toEqual(accountNotFound)
        }))
    })
  })
}

if (!postgresUrl) describe.skip(postgresSkipReason, () => it("runCommand on PostgreSQL", () => {}))
