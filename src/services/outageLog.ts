/**
 * A failure that repeats while it lasts, as every look of every worker meets the same database
 * outage: logged once by the process, with its cause, then its end once (found by review: batch
 * workers logged a stack every 500 ms each while PostgreSQL was down).
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"

export const makeOutageLog = (messages: { readonly failing: string; readonly resumed: string }) =>
  Effect.map(Ref.make(false), (failing) => ({
    failed: (cause: Cause.Cause<unknown>) =>
      Effect.flatMap(Ref.getAndSet(failing, true), (already) => already ? Effect.void : Effect.logWarning(messages.failing, cause)),
    succeeded: Effect.flatMap(Ref.getAndSet(failing, false), (was) => was ? Effect.logInfo(messages.resumed) : Effect.void)
  }))
