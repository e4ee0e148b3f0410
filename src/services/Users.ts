/**
 * The people who log in to the dashboard (issue 5 §1): sign-up with a bound per address, log-in
 * with bounds on recent failures per account and address and per address, slowed down as an
 * account's failures grow; invitations and password-reset links made by an operator, and password
 * changes. Passwords are hashed with Argon2id (`Bun.password`); of an invitation or reset token only
 * its SHA-256 hash is stored.
 */
import { SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Clock, Duration, Effect, Option, Schema } from "effect"
import { accountNameUsed, emailUsed, newPasswordUsed, normaliseEmail } from "../domain/credentials.ts"
import {
  EmailTaken, InvitationInvalid, LoginFailed, LoginThrottled, PasswordResetInvalid, SignupClosed, SignupThrottled, UserNotFound
} from "../domain/dashboard.ts"
import { DashboardUser } from "../domain/models.ts"
import { Accounts } from "./Accounts.ts"
import { DashboardConfig } from "./DashboardConfig.ts"
import { randomToken, tokenHash } from "./secrets.ts"

/**
 * Failed log-ins counted over this window. Past a bound for one account from one address, or for
 * one address over all accounts, log-in is refused there until old ones age out. Failures from
 * other addresses never refuse anyone: they only slow each attempt on the account down, by a delay
 * that doubles with each failure past `slowAfter`, up to `maxDelay`. So nobody can lock the owner
 * out from their own address, and a guesser spread over many addresses gets no more than
 * `perAddress` guesses from each, each one slower. Delayed attempts on one account take turns (in
 * this process): their delays add up instead of running side by side. At most `delayedPerAccount`
 * of them, waiting or in their turn, come from addresses with failures of their own on the account;
 * more are refused at once. An attempt from an address without any is never refused: it waits its turn.
 */
export const loginFailures = {
  window: Duration.minutes(15),
  perAccountAndAddress: 5,
  perAddress: 20,
  slowAfter: 5,
  firstDelay: Duration.seconds(1),
  // Well under the idle timeout (http/connections.ts): a waiting log-in sends nothing meanwhile.
  maxDelay: Duration.seconds(4),
  delayedPerAccount: 3
} as const

/** What a refused attempt is told to wait: about as long as the attempts ahead of it take. */
const turnsRetryAfterSeconds = Math.ceil(Duration.toSeconds(loginFailures.maxDelay) * loginFailures.delayedPerAccount)

/**
 * How long an attempt on an account waits before its password is checked, given the failures on
 * the account (from any address) in the window, this attempt included.
 */
export const loginDelay = (accountFailures: number): Duration.Duration => {
  const past = accountFailures - loginFailures.slowAfter
  if (past <= 0) return Duration.zero
  return Duration.min(Duration.times(loginFailures.firstDelay, 2 ** Math.min(past - 1, 16)), loginFailures.maxDelay)
}

/**
 * Sign-ups counted per address over this window, whether or not they succeed: each one that gets
 * past the form's rules costs a password hash and may leave an account. Ten an hour leaves room
 * for an office behind one address.
 */
export const signupAttempts = { window: Duration.hours(1), perAddress: 10 } as const

const invitationLifetime = Duration.days(7)

/** An operator hands the link over by hand (README, Operator CLI): a day, not a week. */
export const passwordResetLifetime = Duration.hours(24)

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

const hashPassword = (password: string) => Effect.promise(() => Bun.password.hash(password, { algorithm: "argon2id" }))

const Credentials = Schema.Struct({ ...DashboardUser.fields, passwordHash: Schema.NullOr(Schema.String) })

/** The row of a recorded attempt. */
const Attempt = Schema.Struct({ seq: Schema.String })

/** Events of one kind (failed log-ins, sign-ups) still inside their window. */
const Recent = Schema.Struct({ count: Schema.Number, oldest: Schema.NullOr(Schema.DateFromSelf) })

export class Users extends Effect.Service<Users>()("Users", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const accounts = yield* Accounts
    const config = yield* DashboardConfig
    // Verified against when the address is unknown, so the time taken does not tell who has an account.
    const decoy = yield* hashPassword(randomToken())
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    const findCredentials = SqlSchema.findOne({
      Request: Schema.String,
      Result: Credentials,
      execute: (email) => sql`SELECT id, account_id, email, password_hash FROM dashboard_users WHERE email = ${email}`
    })

    const emailTaken = (email: string) =>
      Effect.map(sql`SELECT 1 FROM dashboard_users WHERE email = ${email}`, (rows) => rows.length > 0)

    const insertUser = (user: DashboardUser, secret: { passwordHash: string } | { invitationHash: string; invitationExpiresAt: Date }) =>
      Effect.flatMap(now, (createdAt) => sql`INSERT INTO dashboard_users ${sql.insert({ ...user, ...secret, createdAt })}`)

    /** A new account with its first user; refused while sign-up is closed. */
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
          if (yield* emailTaken(email)) return yield* new EmailTaken()
          const account = yield* accounts.create({ name, email })
          const user = new DashboardUser({ id: crypto.randomUUID(), accountId: account.id, email })
          yield* insertUser(user, { passwordHash })
          return user
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
      }).pipe(Effect.withSpan("Users.signUp"))

    /**
     * Attempts are recorded before they are counted, so concurrent ones see each other and a burst
     * cannot slip past a bound (it can only be refused a little early); a refused one is deleted
     * again, as it cost nothing. Runs an `INSERT ... RETURNING seq::text AS seq`.
     */
    const recordAttempt = (insert: Statement.Statement<unknown>) =>
      SqlSchema.single({ Request: Schema.Void, Result: Attempt, execute: () => insert })(undefined).pipe(
        Effect.map(({ seq }) => seq),
        Effect.orDie
      )

    /** Runs a `SELECT count(*)::int AS count, min(...) AS oldest` over events of one kind. */
    const countRecent = (query: Statement.Statement<unknown>) =>
      SqlSchema.single({ Request: Schema.Void, Result: Recent, execute: () => query })(undefined).pipe(Effect.orDie)
    const recentFailures = (where: Statement.Fragment, since: Date) =>
      countRecent(sql`SELECT count(*)::int AS count, min(failed_at) AS oldest FROM login_failures
        WHERE ${where} AND failed_at > ${since}`)

    /** Once `seen`, this attempt included, is over `bound`: the seconds until its oldest leaves the window. */
    const retryAfter = (seen: typeof Recent.Type, bound: number, window: Duration.Duration, at: Date) =>
      seen.count <= bound || seen.oldest === null
        ? Option.none()
        : Option.some(Math.max(1, Math.ceil((seen.oldest.getTime() + Duration.toMillis(window) - at.getTime()) / 1000)))

    /** Each account's delayed attempts, in their turn or waiting: the entry goes with the last one. */
    const turns = new Map<string, { readonly turn: Effect.Semaphore; waiting: number }>()

    /** Runs `check` in the account's turn; none, at once, if `refusable` and too many are there. */
    const inTurn = <A, E, R>(email: string, refusable: boolean, check: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          const entry = turns.get(email) ?? { turn: Effect.unsafeMakeSemaphore(1), waiting: 0 }
          if (refusable && entry.waiting >= loginFailures.delayedPerAccount) return Option.none()
          entry.waiting++
          turns.set(email, entry)
          return Option.some(entry)
        }),
        Option.match({ onNone: () => Effect.succeedNone, onSome: ({ turn }) => Effect.asSome(turn.withPermits(1)(check)) }),
        (entry) =>
          Effect.sync(() =>
            Option.map(entry, (held) => {
              if (--held.waiting === 0) turns.delete(email)
            })
          )
      )

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
        const delay = loginDelay(byAccount.count)
        const check = Effect.gen(function* () {
          yield* Effect.sleep(delay)
          const found = yield* Effect.orDie(findCredentials(email))
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
        return new DashboardUser({ id: found.value.id, accountId: found.value.accountId, email })
      }).pipe(Effect.withSpan("Users.logIn"))

    /** An operator's invitation to an existing account: a one-time token, valid for a week. */
    const invite = (accountId: string, rawEmail: string) =>
      Effect.gen(function* () {
        const email = yield* emailUsed(rawEmail)
        yield* accounts.find(accountId)
        if (yield* emailTaken(email)) return yield* new EmailTaken()
        const token = randomToken()
        const expiresAt = new Date((yield* Clock.currentTimeMillis) + Duration.toMillis(invitationLifetime))
        const user = new DashboardUser({ id: crypto.randomUUID(), accountId, email })
        yield* insertUser(user, { invitationHash: tokenHash(token), invitationExpiresAt: expiresAt })
        return { user, token, expiresAt }
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Users.invite"))

    /**
     * A one-time password-reset link's token for the user of `rawEmail`, made by an operator;
     * only its hash is stored, as for invitations. Earlier links of the user stay valid until used
     * or expired.
     */
    const createPasswordReset = (rawEmail: string) =>
      Effect.gen(function* () {
        const email = yield* emailUsed(rawEmail)
        const found = yield* Effect.orDie(findCredentials(email))
        if (Option.isNone(found)) return yield* new UserNotFound({ email })
        const token = randomToken()
        const createdAt = yield* now
        const expiresAt = new Date(createdAt.getTime() + Duration.toMillis(passwordResetLifetime))
        yield* sql`INSERT INTO password_resets
          ${sql.insert({ tokenHash: tokenHash(token), userId: found.value.id, createdAt, expiresAt })}`.pipe(Effect.orDie)
        return { user: new DashboardUser({ id: found.value.id, accountId: found.value.accountId, email }), token, expiresAt }
      }).pipe(Effect.withSpan("Users.createPasswordReset"))

    const pendingInvitation = (token: string) =>
      Effect.gen(function* () {
        const rows = yield* sql<{ email: string }>`SELECT email FROM dashboard_users
          WHERE invitation_hash = ${tokenHash(token)} AND invitation_expires_at > ${yield* now} AND password_hash IS NULL`
        const [row] = rows
        return row === undefined ? yield* new InvitationInvalid() : row
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Users.pendingInvitation"))

    /** Sets the password of an invited user; the token works once. */
    const acceptInvitation = (token: string, password: string) =>
      Effect.gen(function* () {
        yield* pendingInvitation(token)
        const passwordHash = yield* hashPassword(yield* newPasswordUsed(password))
        const [row] = yield* sql<{ id: string; accountId: string; email: string }>`UPDATE dashboard_users
          SET password_hash = ${passwordHash}, invitation_hash = NULL, invitation_expires_at = NULL
          WHERE invitation_hash = ${tokenHash(token)} AND invitation_expires_at > ${yield* now} AND password_hash IS NULL
          RETURNING id, account_id, email`
        return row === undefined ? yield* new InvitationInvalid() : new DashboardUser(row)
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
     * Sets a new password with a reset token and ends every session of the user, in one
     * transaction. The row is locked and re-checked (`FOR UPDATE`), so of two concurrent uses of
     * one token only the first sets a password; the other finds it used. The password is hashed
     * before, so no lock is held for the time Argon2id takes.
     */
    const resetPassword = (token: string, password: string) =>
      Effect.gen(function* () {
        yield* pendingPasswordReset(token)
        const passwordHash = yield* hashPassword(yield* newPasswordUsed(password))
        return yield* Effect.gen(function* () {
          const at = yield* now
          const [row] = yield* sql<{ id: string; accountId: string; email: string }>`SELECT u.id, u.account_id, u.email
            FROM password_resets r JOIN dashboard_users u ON u.id = r.user_id
            WHERE r.token_hash = ${tokenHash(token)} AND r.expires_at > ${at} AND r.used_at IS NULL
            FOR UPDATE OF r`
          if (row === undefined) return yield* new PasswordResetInvalid({ reason: "spent" })
          yield* sql`UPDATE dashboard_users SET password_hash = ${passwordHash} WHERE id = ${row.id}`
          yield* sql`UPDATE password_resets SET used_at = ${at} WHERE token_hash = ${tokenHash(token)}`
          yield* sql`DELETE FROM sessions WHERE user_id = ${row.id}`
          return new DashboardUser(row)
        }).pipe(sql.withTransaction)
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Users.resetPassword"))

    /**
     * A logged-in user's new password. The current one is checked as a log-in is, bounds included,
     * so this form is no way around them to guess it; a new password that breaks the rules costs
     * no attempt. Every other session of the user ends.
     */
    const changePassword = (change: ChangePassword) =>
      Effect.gen(function* () {
        const password = yield* newPasswordUsed(change.next)
        yield* logIn({ email: change.email, password: change.current, address: change.address })
        const passwordHash = yield* hashPassword(password)
        yield* Effect.all([
          sql`UPDATE dashboard_users SET password_hash = ${passwordHash} WHERE id = ${change.userId}`,
          sql`DELETE FROM sessions WHERE user_id = ${change.userId} AND id <> ${change.keepSession}`
        ], { discard: true }).pipe(sql.withTransaction, Effect.orDie)
      }).pipe(Effect.withSpan("Users.changePassword"))

    return {
      signupOpen: config.signup === "open",
      signUp, logIn, invite, pendingInvitation, acceptInvitation, createPasswordReset, pendingPasswordReset, resetPassword, changePassword,
      emailTaken: (email: string) => Effect.orDie(emailTaken(email))
    } as const
  }),
  dependencies: [Accounts.Default, DashboardConfig.layer]
}) {}
