/**
 * The `dashboard_users` rows that `Users` and its links (invitations, password resets) share:
 * lookup by address, insertion, password hashing with Argon2id (`Bun.password`), and the credits
 * a new account starts with (`SIGNUP_CREDITS`).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { EmailTaken } from "../domain/dashboard.ts"
import { DashboardUser } from "../domain/models.ts"
import type { Credits } from "./Credits.ts"
import type { AccountId } from "../domain/ids.ts"

export const hashPassword = (password: string) => Effect.promise(() => Bun.password.hash(password, { algorithm: "argon2id" }))

const Credentials = Schema.Struct({ ...DashboardUser.fields, passwordHash: Schema.NullOr(Schema.String), accountClosed: Schema.Boolean })

export const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

export const makeUserRows = (sql: SqlClient.SqlClient, credits: Credits, signupCredits: number) => {
  const findCredentials = SqlSchema.findOne({
    Request: Schema.String,
    Result: Credentials,
    execute: (email) => sql`SELECT u.id, u.account_id, u.email, u.password_hash, a.deleted_at IS NOT NULL AS account_closed
      FROM dashboard_users u JOIN accounts a ON a.id = u.account_id WHERE u.email = ${email}`
  })

  /**
   * Whether a dashboard user or an account (one an operator made, `account create --email`) has
   * the address (normalised): one address, one account, as the CLI has it. A sign-up with an
   * operator's account's address made a second account, and the CLI could no longer name either
   * by it (found by review). An invitation's own account (`invitedTo`) does not count. The
   * refusal, if it is taken.
   */
  const emailHolder = (email: string, invitedTo: AccountId | null = null) =>
    Effect.map(
      sql<{ holder: "user" | "account" }>`SELECT 'user' AS holder FROM dashboard_users WHERE email = ${email}
        UNION ALL SELECT 'account' AS holder FROM accounts WHERE lower(email) = ${email} AND deleted_at IS NULL
          AND (${invitedTo}::uuid IS NULL OR id <> ${invitedTo}::uuid)`,
      (rows) => rows.length === 0 ? Option.none() : Option.some(new EmailTaken({ byAccount: rows.every((row) => row.holder === "account") }))
    )

  const emailTaken = (email: string) => Effect.map(emailHolder(email), Option.isSome)

  const insertUser = (user: DashboardUser, secret: { passwordHash: string } | { invitationHash: string; invitationExpiresAt: Date }) =>
    Effect.flatMap(now, (createdAt) => sql`INSERT INTO dashboard_users ${sql.insert({ ...user, ...secret, createdAt })}`)

  /** `SIGNUP_CREDITS` for an account whose first user just joined (validated at start-up, so it cannot fail). */
  const welcomeCredits = (accountId: AccountId) =>
    signupCredits === 0 ? Effect.void : credits.grant(accountId, signupCredits, "sign-up credits").pipe(Effect.orDie, Effect.asVoid)

  /**
   * Spends every reset link of the user not yet used: a new password, however it was set, ends
   * them all, so a link left in a mailbox someone else reads no longer opens the account.
   */
  const spendResets = (userId: string) =>
    Effect.flatMap(now, (at) => sql`UPDATE password_resets SET used_at = ${at} WHERE user_id = ${userId} AND used_at IS NULL`)

  return { findCredentials, emailHolder, emailTaken, insertUser, welcomeCredits, spendResets } as const
}

export type UserRows = ReturnType<typeof makeUserRows>
