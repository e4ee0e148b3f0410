/**
 * The people who log in to the dashboard (README, Dashboard): sign-up with a bound per address, log-in
 * with bounds on recent failures per account and address and per address, slowed down as an
 * account's failures grow (bounds in `attempts.ts`); password changes; invitations and
 * password-reset links (`userLinks.ts`). Passwords are hashed with Argon2id.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { accountNameUsed, emailUsed, newPasswordUsed, normaliseEmail } from "../domain/credentials.ts"
import { AccountClosed, LoginFailed, LoginThrottled, SignupClosed, SignupThrottled } from "../domain/dashboard.ts"
import { DashboardUser } from "../domain/models.ts"
import { Accounts } from "./Accounts.ts"
import {
  countRecent, loginDelay, loginFailures, makeTurns, recordAttempt, retryAfter, signupAttempts, turnsRetryAfterSeconds
} from "./attempts.ts"
import { Credits } from "./Credits.ts"
import { DashboardConfig } from "../config/DashboardConfig.ts"
import { randomToken } from "./secrets.ts"
import { makeUserLinks } from "./userLinks.ts"
import { hashPassword, makeUserRows, now } from "./userRows.ts"

export interface SignUp {
  readonly name: string
  readonly email: string
  readonly password: string
  /** The client's network address, for the per-address bound. */
  readonly address: string
}

export interface LogIn {
  readonly email: string
  readonly password: string
  /** The client's network address, for the per-address bound. */
  readonly address: string
  /** A browser that logged in as this user before (Sessions.isKnownBrowser): it never waits in the account's turn. */
  readonly knownBrowser?: boolean
}

export interface ChangePassword {
  readonly userId: string
  readonly email: string
  readonly current: string
  readonly next: string
  /** The client's network address: a wrong current password is a failed log-in there too. */
  readonly address: string
  /** The session that asks, which stays; the user's others end. */
  readonly keepSession: string
}

export class Users extends Effect.Service<Users>()("Users", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const accounts = yield* Accounts
    const config = yield* DashboardConfig
    const rows = makeUserRows(sql, yield* Credits, config.signupCredits)
    const inTurn = makeTurns()
    // Verified against when the address is unknown, so the time taken does not tell who has an account.
    const decoy = yield* hashPassword(randomToken())

    /** A new account with its first user and its sign-up credits; refused while sign-up is closed. */
    const signUp = (form: SignUp) =>
      Effect.gen(function* () {
        if (config.signup === "closed") return yield* new SignupClosed()
        const name = yield* accountNameUsed(form.name)
        const email = yield* emailUsed(form.email)
        const password = yield* newPasswordUsed(form.password)
        // After the form's own rules (a typo costs no attempt), before the password is hashed.
        const at = yield* now
        const since = new Date(at.getTime() - Duration.toMillis(signupAttempts.window))
        yield* sql`DELETE FROM signup_attempts WHERE attempted_at <= ${since}`.pipe(Effect.orDie)
        const attempt = yield* recordAttempt(sql`INSERT INTO signup_attempts
          ${sql.insert({ address: form.address, attemptedAt: at })} RETURNING seq::text AS seq`)
        const recent = yield* countRecent(sql`SELECT count(*)::int AS count, min(attempted_at) AS oldest FROM signup_attempts
          WHERE address = ${form.address} AND attempted_at > ${since}`)
        const refused = retryAfter(recent, signupAttempts.perAddress, signupAttempts.window, at)
        if (Option.isSome(refused)) {
          yield* sql`DELETE FROM signup_attempts WHERE seq = ${attempt}::bigint`.pipe(Effect.orDie)
          return yield* new SignupThrottled({ retryAfterSeconds: refused.value })
        }
        const passwordHash = yield* hashPassword(password)
        return yield* Effect.gen(function* () {
          const taken = yield* rows.emailHolder(email)
          if (Option.isSome(taken)) return yield* taken.value
          const account = yield* accounts.create({ name, email })
          const user = new DashboardUser({ id: crypto.randomUUID(), accountId: account.id, email })
          yield* rows.insertUser(user, { passwordHash })
          yield* rows.welcomeCredits(account.id)
          return user
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      }).pipe(Effect.withSpan("Users.signUp"))

    const recentFailures = (where: Statement.Fragment, since: Date) =>
      countRecent(sql`SELECT count(*)::int AS count, min(failed_at) AS oldest FROM login_failures
        WHERE ${where} AND failed_at > ${since}`)

    /**
     * Refused before the password is looked at while a bound of this address is reached; otherwise
     * delayed as the account's failures grow. Each waiting attempt holds only its connection, and an
     * address has at most `perAddress` attempts counted at once, so the waits are bounded too.
     */
    const logIn = (form: LogIn) =>
      Effect.gen(function* () {
        const email = normaliseEmail(form.email)
        const at = yield* now
        const since = new Date(at.getTime() - Duration.toMillis(loginFailures.window))
        yield* sql`DELETE FROM login_failures WHERE failed_at <= ${since}`.pipe(Effect.orDie)
        // Recorded as a failure until the password proves right.
        const attempt = yield* recordAttempt(sql`INSERT INTO login_failures
          ${sql.insert({ email, address: form.address, failedAt: at })} RETURNING seq::text AS seq`)
        const byPair = yield* recentFailures(sql`email = ${email} AND address = ${form.address}`, since)
        const byAddress = yield* recentFailures(sql`address = ${form.address}`, since)
        const refused = Option.orElse(
          retryAfter(byPair, loginFailures.perAccountAndAddress, loginFailures.window, at),
          () => retryAfter(byAddress, loginFailures.perAddress, loginFailures.window, at)
        )
        if (Option.isSome(refused)) {
          yield* sql`DELETE FROM login_failures WHERE seq = ${attempt}::bigint`.pipe(Effect.orDie)
          return yield* new LoginThrottled({ retryAfterSeconds: refused.value })
        }
        const byAccount = yield* recentFailures(sql`email = ${email}`, since)
        // Failures from other addresses slow a guesser down; the owner's own browser is not one.
        const delay = form.knownBrowser === true ? Duration.zero : loginDelay(byAccount.count)
        const check = Effect.gen(function* () {
          yield* Effect.sleep(delay)
          const found = yield* Effect.orDie(rows.findCredentials(email))
          const hash = Option.flatMap(found, (user) => Option.fromNullable(user.passwordHash))
          const valid = yield* Effect.promise(() => Bun.password.verify(form.password, Option.getOrElse(hash, () => decoy)))
          return { found, hash, valid }
        })
        // `byPair` counts this attempt: past one, this address has failures of its own on the account.
        const checked = Duration.isZero(delay) ? Option.some(yield* check) : yield* inTurn(email, byPair.count > 1, check)
        if (Option.isNone(checked)) {
          yield* sql`DELETE FROM login_failures WHERE seq = ${attempt}::bigint`.pipe(Effect.orDie)
          return yield* new LoginThrottled({ retryAfterSeconds: turnsRetryAfterSeconds })
        }
        const { found, hash, valid } = checked.value
        if (!valid || Option.isNone(hash) || Option.isNone(found)) return yield* new LoginFailed()
        // A success clears what this address counted against the account (this attempt included),
        // not what other addresses did: their guesses keep their bounds and delays.
        yield* sql`DELETE FROM login_failures WHERE email = ${email} AND address = ${form.address}`.pipe(Effect.orDie)
        if (found.value.accountClosed) return yield* new AccountClosed()
        return new DashboardUser({ id: found.value.id, accountId: found.value.accountId, email })
      }).pipe(Effect.withSpan("Users.logIn"))

    /**
     * A logged-in user's new password. The current one is checked as a log-in is, bounds included,
     * so this form is no way around them to guess it; a new password that breaks the rules costs
     * no attempt. Every other session of the user ends, and every reset link not yet used.
     */
    const changePassword = (change: ChangePassword) =>
      Effect.gen(function* () {
        const password = yield* newPasswordUsed(change.next)
        // A logged-in user's own browser: it never waits in the account's turn.
        yield* logIn({ email: change.email, password: change.current, address: change.address, knownBrowser: true })
        const passwordHash = yield* hashPassword(password)
        yield* Effect.all([
          sql`UPDATE dashboard_users SET password_hash = ${passwordHash} WHERE id = ${change.userId}`,
          sql`DELETE FROM sessions WHERE user_id = ${change.userId} AND id <> ${change.keepSession}`,
          rows.spendResets(change.userId)
        ], { discard: true }).pipe(sql.withTransaction, Effect.orDie)
      }).pipe(Effect.withSpan("Users.changePassword"))

    return {
      signupOpen: config.signup === "open",
      signUp, logIn, changePassword,
      ...makeUserLinks(sql, accounts, rows),
      emailTaken: (email: string) => Effect.orDie(rows.emailTaken(email))
    } as const
  }),
  dependencies: [Accounts.Default]
}) {}
