/** Accounts and their subscriptions (spec §2.3). Balances live in `Credits`. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AccountNotFound } from "../domain/errors.ts"
import { Account, Subscription } from "../domain/models.ts"
import { AccountId } from "../domain/ids.ts"

export interface NewAccount {
  readonly name: string
  readonly email?: string | undefined
}

/** An account as an operator lists it: with how many keys it has (not deleted, expired or not). */
export const AccountSummary = Schema.Struct({ ...Account.fields, keyCount: Schema.Number })
export type AccountSummary = typeof AccountSummary.Type

export class Accounts extends Effect.Service<Accounts>()("Accounts", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const findRow = SqlSchema.findOne({
      Request: AccountId,
      Result: Account,
      execute: (id) =>
        sql`SELECT id, name, email, registered_at, credits FROM accounts WHERE id = ${id} AND deleted_at IS NULL`
    })

    /** Fails with `AccountNotFound` for an unknown or deleted id. */
    const find = (id: AccountId) =>
      findRow(id).pipe(
        Effect.orDie,
        Effect.flatMap(Option.match({ onNone: () => new AccountNotFound(), onSome: Effect.succeed })),
        Effect.withSpan("Accounts.find")
      )

    const create = (account: NewAccount) =>
      Effect.gen(function* () {
        const id = AccountId.make(crypto.randomUUID())
        const registeredAt = new Date(yield* Clock.currentTimeMillis)
        yield* sql`INSERT INTO accounts ${sql.insert({ id, name: account.name, email: account.email ?? null, registeredAt })}`
        return new Account({ id, name: account.name, email: account.email ?? null, registeredAt, credits: 0 })
      }).pipe(Effect.orDie, Effect.withSpan("Accounts.create"))

    const listRows = SqlSchema.findAll({
      Request: Schema.NullOr(Schema.String),
      Result: AccountSummary,
      execute: (email) => sql`SELECT a.id, a.name, a.email, a.registered_at, a.credits,
          (SELECT count(*)::int FROM api_keys k WHERE k.account_id = a.id AND k.deleted_at IS NULL) AS key_count
        FROM accounts a
        WHERE a.deleted_at IS NULL AND (${email}::text IS NULL OR lower(a.email) = ${email})
        ORDER BY a.registered_at, a.id`
    })

    /** Accounts not deleted, oldest first; with `email` (normalised) only those with that address. */
    const list = (filter: { readonly email?: string | undefined } = {}) =>
      listRows(filter.email ?? null).pipe(Effect.orDie, Effect.withSpan("Accounts.list"))

    /** Soft delete: the ledger and usage stay explainable; keys of the account answer 404 (§7.2). */
    const remove = (id: AccountId) =>
      find(id).pipe(
        Effect.zipRight(Clock.currentTimeMillis),
        Effect.flatMap((now) => sql`UPDATE accounts SET deleted_at = ${new Date(now)} WHERE id = ${id}`.pipe(Effect.orDie)),
        Effect.asVoid,
        Effect.withSpan("Accounts.remove")
      )

    const findSubscription = SqlSchema.findOne({
      Request: Schema.UUID,
      Result: Subscription,
      execute: (id) =>
        sql`SELECT plan_name, plan_description, status, renews_at, ends_at FROM subscriptions WHERE account_id = ${id}`
    })

    const subscription = (accountId: AccountId) =>
      findSubscription(accountId).pipe(Effect.orDie, Effect.withSpan("Accounts.subscription"))

    const setSubscription = (accountId: AccountId, value: Subscription) =>
      Effect.gen(function* () {
        yield* find(accountId)
        const row = { accountId, ...value, updatedAt: new Date(yield* Clock.currentTimeMillis) }
        yield* sql`INSERT INTO subscriptions ${sql.insert(row)}
          ON CONFLICT (account_id) DO UPDATE SET plan_name = EXCLUDED.plan_name,
            plan_description = EXCLUDED.plan_description, status = EXCLUDED.status,
            renews_at = EXCLUDED.renews_at, ends_at = EXCLUDED.ends_at, updated_at = EXCLUDED.updated_at`.pipe(Effect.orDie)
      }).pipe(Effect.withSpan("Accounts.setSubscription"))

    const clearSubscription = (accountId: AccountId) =>
      find(accountId).pipe(
        Effect.zipRight(sql`DELETE FROM subscriptions WHERE account_id = ${accountId}`.pipe(Effect.orDie)),
        Effect.asVoid,
        Effect.withSpan("Accounts.clearSubscription")
      )

    return { find, list, create, remove, subscription, setSubscription, clearSubscription } as const
  })
}) {}
