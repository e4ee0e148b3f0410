/**
 * Facts a request's work adds to its log line (http/requestLog.ts writes the line): apart from
 * HTTP, so the describe use case can add them whoever calls it.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"

export interface RequestFacts {
  readonly errorKind?: string
  /** Why generation failed (`GenerationFailed`'s reason: timeout, refusal, budget-spent…), for the operator. */
  readonly errorReason?: string
  readonly modelLatencyMs?: number
  readonly imageBytes?: number
  readonly creditsAfter?: number
  /**
   * The status answered when it is not the one the platform makes of how the request ended: a
   * request cut by the shutdown deadline is answered 500 (http/errors.ts), the platform's 503.
   */
  readonly status?: number
}

/** What a log line says of a failure: its kind and, for a failed generation, why (never told to the client). */
export const failureFacts = (error: { readonly _tag: string; readonly reason?: unknown }): Pick<RequestFacts, "errorKind" | "errorReason"> => ({
  errorKind: error._tag,
  ...(error._tag === "GenerationFailed" && { errorReason: String(error.reason) })
})

/** What the route has noted about the request so far. */
export class RequestLogFacts extends Context.Tag("RequestLogFacts")<RequestLogFacts, Ref.Ref<RequestFacts>>() {}

/** Adds facts to the request's log line; does nothing outside a request. */
export const addToRequestLog = (facts: RequestFacts) =>
  Effect.serviceOption(RequestLogFacts).pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: (notes) => Ref.update(notes, (all) => ({ ...all, ...facts })) }))
  )
