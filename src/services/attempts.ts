/**
 * The bounds on dashboard attempts (log-ins, sign-ups, reset e-mails) and the SQL that counts
 * them, for `Users` and its password-reset links (README, Dashboard).
 */
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type FifoSemaphore, unsafeMakeFifoSemaphore } from "./fifoSemaphore.ts"

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
 * A browser that logged in as the user before (Sessions.isKnownBrowser) skips the delay and the turn,
 * so nobody can hold the owner's log-in by keeping the turn full from many addresses.
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
export const turnsRetryAfterSeconds = Math.ceil(Duration.toSeconds(loginFailures.maxDelay) * loginFailures.delayedPerAccount)

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

/**
 * "Forgot password" requests: per address as log-ins are (each may send an e-mail), and per
 * address asked for, silently (the answer never says whether an account exists), so nobody can
 * fill a person's mailbox.
 */
export const resetRequests = { window: Duration.minutes(15), perAddress: 20, perEmail: 3 } as const

/** The row of a recorded attempt. */
const Attempt = Schema.Struct({ seq: Schema.String })

/** Events of one kind (failed log-ins, sign-ups) still inside their window. */
const Recent = Schema.Struct({ count: Schema.Number, oldest: Schema.NullOr(Schema.DateFromSelf) })
export type Recent = typeof Recent.Type

/** Once `seen`, this attempt included, is over `bound`: the seconds until its oldest leaves the window. */
export const retryAfter = (seen: Recent, bound: number, window: Duration.Duration, at: Date) =>
  seen.count <= bound || seen.oldest === null
    ? Option.none()
    : Option.some(Math.max(1, Math.ceil((seen.oldest.getTime() + Duration.toMillis(window) - at.getTime()) / 1000)))

/**
 * Attempts are recorded before they are counted, so concurrent ones see each other and a burst
 * cannot slip past a bound (it can only be refused a little early); a refused one is deleted
 * again, as it cost nothing. Runs an `INSERT ... RETURNING seq::text AS seq`.
 */
export const recordAttempt = (insert: Statement.Statement<unknown>) =>
  SqlSchema.single({ Request: Schema.Void, Result: Attempt, execute: () => insert })(undefined).pipe(
    Effect.map(({ seq }) => seq),
    Effect.orDie
  )

/** Runs a `SELECT count(*)::int AS count, min(...) AS oldest` over events of one kind. */
export const countRecent = (query: Statement.Statement<unknown>) =>
  SqlSchema.single({ Request: Schema.Void, Result: Recent, execute: () => query })(undefined).pipe(Effect.orDie)

/** Turns of delayed log-ins, one per account (see `loginFailures`), in this process. */
export const makeTurns = () => {
  /** Each account's delayed attempts, in their turn or waiting: the entry goes with the last one. */
  const turns = new Map<string, { readonly turn: FifoSemaphore; waiting: number }>()

  /** Runs `check` in the account's turn; none, at once, if `refusable` and too many are there. */
  return <A, E, R>(email: string, refusable: boolean, check: Effect.Effect<A, E, R>) =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const entry = turns.get(email) ?? { turn: unsafeMakeFifoSemaphore(1), waiting: 0 }
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
}
