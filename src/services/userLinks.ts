/**
 * One-time links of `Users` (README, Dashboard and Operator CLI): an operator's invitations, and
 * password resets, made by an operator or asked for on the "Forgot password" page. Of each token
 * only its SHA-256 hash is stored.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { emailUsed, newPasswordUsed } from "../domain/credentials.ts"
import { InvitationInvalid, PasswordResetInvalid, ResetThrottled, UserNotFound } from "../domain/dashboard.ts"
import { DashboardUser } from "../domain/models.ts"
import type { Accounts } from "./Accounts.ts"
import { countRecent, recordAttempt, resetRequests, retryAfter } from "./attempts.ts"
import { randomToken, tokenHash } from "./secrets.ts"
import { hashPassword, now } from "./userRows.ts"
import type { UserRows } from "./userRows.ts"
import type { AccountId } from "../domain/ids.ts"

const invitationLifetime = Duration.days(7)

/** A link handed over by an operator or sent by e-mail: a day, not a week. */
export const passwordResetLifetime = Duration.hours(24)

export const makeUserLinks = (sql: SqlClient.SqlClient, accounts: Accounts, rows: UserRows) => {
  /** An operator's invitation to an existing account: a one-time token, valid for a week. */
  const invite = (accountId: AccountId, rawEmail: string) =>
    Effect.gen(function* () {
      const email = yield* emailUsed(rawEmail)
      yield* accounts.find(accountId)
      const taken = yield* rows.emailHolder(email, accountId)
      if (Option.isSome(taken)) return yield* taken.value
      const token = randomToken()
      const expiresAt = new Date((yield* now).getTime() + Duration.toMillis(invitationLifetime))
      const user = new DashboardUser({ id: crypto.randomUUID(), accountId, email })
      yield* rows.insertUser(user, { invitationHash: tokenHash(token), invitationExpiresAt: expiresAt })
      return { user, token, expiresAt }
    }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Users.invite"))

  /** A new reset token for a user; earlier ones stay valid until used, expired, or a password is set. */
  const newReset = (user: DashboardUser) =>
    Effect.gen(function* () {
      const token = randomToken()
      const createdAt = yield* now
      const expiresAt = new Date(createdAt.getTime() + Duration.toMillis(passwordResetLifetime))
      yield* sql`INSERT INTO password_resets
        ${sql.insert({ tokenHash: tokenHash(token), userId: user.id, createdAt, expiresAt })}`.pipe(Effect.orDie)
      return { user, token, expiresAt }
    })

  /** A one-time password-reset link's token for the user of `rawEmail`, made by an operator. */
  const createPasswordReset = (rawEmail: string) =>
    Effect.gen(function* () {
      const email = yield* emailUsed(rawEmail)
      const found = yield* Effect.orDie(rows.findCredentials(email))
      if (Option.isNone(found)) return yield* new UserNotFound({ email })
      return yield* newReset(new DashboardUser({ id: found.value.id, accountId: found.value.accountId, email }))
    }).pipe(Effect.withSpan("Users.createPasswordReset"))

  /**
   * "Forgot password": a reset token for the user of `rawEmail` if there is one with a password,
   * none otherwise, which the caller must not tell apart. A malformed address is `FormInvalid`
   * (and costs no attempt); past the per-address bound, `ResetThrottled`; past the bound for the
   * address asked for, silently none.
   */
  const requestPasswordReset = (rawEmail: string, address: string) =>
    Effect.gen(function* () {
      const email = yield* emailUsed(rawEmail)
      const at = yield* now
      const since = new Date(at.getTime() - Duration.toMillis(resetRequests.window))
      yield* sql`DELETE FROM password_reset_requests WHERE requested_at <= ${since}`.pipe(Effect.orDie)
      const attempt = yield* recordAttempt(sql`INSERT INTO password_reset_requests
        ${sql.insert({ email, address, requestedAt: at })} RETURNING seq::text AS seq`)
      const recent = (where: Statement.Fragment) =>
        countRecent(sql`SELECT count(*)::int AS count, min(requested_at) AS oldest FROM password_reset_requests
          WHERE ${where} AND requested_at > ${since}`)
      const refused = retryAfter(yield* recent(sql`address = ${address}`), resetRequests.perAddress, resetRequests.window, at)
      if (Option.isSome(refused)) {
        yield* sql`DELETE FROM password_reset_requests WHERE seq = ${attempt}::bigint`.pipe(Effect.orDie)
        return yield* new ResetThrottled({ retryAfterSeconds: refused.value })
      }
      if ((yield* recent(sql`email = ${email}`)).count > resetRequests.perEmail) return Option.none()
      const found = Option.filter(yield* Effect.orDie(rows.findCredentials(email)), (user) => user.passwordHash !== null && !user.accountClosed)
      if (Option.isNone(found)) return Option.none()
      return Option.some(yield* newReset(new DashboardUser({ id: found.value.id, accountId: found.value.accountId, email })))
    }).pipe(Effect.withSpan("Users.requestPasswordReset"))

  const pendingInvitation = (token: string) =>
    Effect.gen(function* () {
      const [row] = yield* sql<{ email: string }>`SELECT email FROM dashboard_users
        WHERE invitation_hash = ${tokenHash(token)} AND invitation_expires_at > ${yield* now} AND password_hash IS NULL`
      return row === undefined ? yield* new InvitationInvalid() : row
    }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Users.pendingInvitation"))

  /**
   * Sets the password of an invited user; the token works once. An account has one user, so this
   * is its first: it gets its sign-up credits, as with a sign-up.
   */
  const acceptInvitation = (token: string, password: string) =>
    Effect.gen(function* () {
      yield* pendingInvitation(token)
      const passwordHash = yield* hashPassword(yield* newPasswordUsed(password))
      return yield* Effect.gen(function* () {
        const [row] = yield* sql<{ id: string; accountId: AccountId; email: string }>`UPDATE dashboard_users
          SET password_hash = ${passwordHash}, invitation_hash = NULL, invitation_expires_at = NULL
          WHERE invitation_hash = ${tokenHash(token)} AND invitation_expires_at > ${yield* now} AND password_hash IS NULL
          RETURNING id, account_id, email`
        if (row === undefined) return yield* new InvitationInvalid()
        yield* rows.welcomeCredits(row.accountId)
        return new DashboardUser(row)
      }).pipe(sql.withTransaction)
    }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Users.acceptInvitation"))

  /** The user a reset token is for, while it is unused and unexpired. */
  const pendingPasswordReset = (token: string) =>
    Effect.gen(function* () {
      const [row] = yield* sql<{ email: string; live: boolean }>`SELECT u.email, (r.expires_at > ${yield* now} AND r.used_at IS NULL) AS live
        FROM password_resets r JOIN dashboard_users u ON u.id = r.user_id WHERE r.token_hash = ${tokenHash(token)}`
      if (row === undefined) return yield* new PasswordResetInvalid({ reason: "unknown" })
      return row.live ? { email: row.email } : yield* new PasswordResetInvalid({ reason: "spent" })
    }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Users.pendingPasswordReset"))

  /**
   * Sets a new password with a reset token, spends every reset link of the user (this one and any
   * other) and ends every session of the user, in one transaction. The user's row is locked first,
   * as a change of password locks it (Users.ts), then the link's, re-checked: of two concurrent
   * uses of the user's links only the first sets a password; the other finds its link spent. The
   * password is hashed before, so no lock is held for the time Argon2id takes.
   */
  const resetPassword = (token: string, password: string) =>
    Effect.gen(function* () {
      yield* pendingPasswordReset(token)
      const passwordHash = yield* hashPassword(yield* newPasswordUsed(password))
      return yield* Effect.gen(function* () {
        const at = yield* now
        // Before any link's row: taking the user's second, as each link's holder did, two holders
        // of two links waited on each other (PostgreSQL's deadlock, a 500).
        yield* sql`SELECT 1 FROM dashboard_users WHERE id = (SELECT user_id FROM password_resets WHERE token_hash = ${tokenHash(token)})
          FOR UPDATE`
        const [row] = yield* sql<{ id: string; accountId: AccountId; email: string }>`SELECT u.id, u.account_id, u.email
          FROM password_resets r JOIN dashboard_users u ON u.id = r.user_id
          WHERE r.token_hash = ${tokenHash(token)} AND r.expires_at > ${at} AND r.used_at IS NULL
          FOR UPDATE OF r`
        if (row === undefined) return yield* new PasswordResetInvalid({ reason: "spent" })
        yield* sql`UPDATE dashboard_users SET password_hash = ${passwordHash} WHERE id = ${row.id}`
        yield* rows.spendResets(row.id)
        yield* sql`DELETE FROM sessions WHERE user_id = ${row.id}`
        return new DashboardUser(row)
      }).pipe(sql.withTransaction)
    }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Users.resetPassword"))

  return {
    invite, createPasswordReset, requestPasswordReset, pendingInvitation, acceptInvitation, pendingPasswordReset, resetPassword
  } as const
}
