/**
 * A failure that repeats while it lasts, as every look of every worker meets the same database
 * outage: logged once by the process, with its cause, then its end once (found by review: batch
 * workers logged a stack every 500 ms each while PostgreSQL was down).
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"

/** `watched(effect)` runs `effect`, logs as above, and says whether it succeeded; it never fails. */
export const makeOutageLog = (messages: { readonly failing: string; readonly resumed: string }) =>
  Effect.map(Ref.make(false), (failing) => {
    const failed = (cause: Cause.Cause<unknown>) =>
      Effect.flatMap(Ref.getAndSet(failing, true), (already) => already ? Effect.void : Effect.logWarning(messages.failing, cause))
    const succeeded = Effect.flatMap(Ref.getAndSet(failing, false), (was) => was ? Effect.logInfo(messages.resumed) : Effect.void)
    return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<boolean, never, R> =>
      Effect.matchCauseEffect(effect, {
        onFailure: (cause) => Effect.as(failed(cause), false),
        onSuccess: () => Effect.as(succeeded, true)
      })
  })
