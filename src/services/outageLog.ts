/**
 * A failure that repeats while it lasts, as every look of every worker meets the same database
 * outage: logged once by the process, with its cause, then its end once (found by review: batch
 * workers logged a stack every 500 ms each while PostgreSQL was down). A different failure during
 * it (the connection refused after one broke, a statement refused once the database is back) is
 * logged too, once, so that an outage never hides it.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { explained } from "./messageOf.ts"

/** What tells one failure from another: the error's name and what it says, without its stack. */
export const failureOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const name = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : ""
  return `${name}: ${explained(error)}`
}

/** At most this many different failures are logged in one outage: its messages may vary without end. */
const distinctLogged = 8

/** `watched(effect)` runs `effect`, logs as above, and says whether it succeeded; it never fails. */
export const makeOutageLog = (messages: { readonly failing: string; readonly resumed: string }) =>
  Effect.map(Ref.make<ReadonlySet<string>>(new Set()), (logged) => {
    const failed = (cause: Cause.Cause<unknown>) => {
      const failure = failureOf(cause)
      return Effect.flatMap(
        Ref.modify(logged, (seen) =>
          seen.has(failure) || seen.size >= distinctLogged ? [false, seen] : [true, new Set([...seen, failure])]),
        (first) => first ? Effect.logWarning(messages.failing, cause) : Effect.void
      )
    }
    const succeeded = Effect.flatMap(Ref.getAndSet(logged, new Set()), (seen) =>
      seen.size > 0 ? Effect.logInfo(messages.resumed) : Effect.void)
    return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<boolean, never, R> =>
      Effect.matchCauseEffect(effect, {
        onFailure: (cause) => Effect.as(failed(cause), false),
        onSuccess: () => Effect.as(succeeded, true)
      })
  })
