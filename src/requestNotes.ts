/**
 * Facts a request's work adds to its log line (http/requestLog.ts writes the line): apart from
 * HTTP, so the describe use case can note them whoever calls it.
 */
import { Context, Effect, Option, Ref } from "effect"

export interface RequestFacts {
  readonly errorKind?: string
  readonly modelLatencyMs?: number
  readonly imageBytes?: number
  readonly creditsAfter?: number
}

/** What the route has noted about the request so far. */
export class RequestNotes extends Context.Tag("RequestNotes")<RequestNotes, Ref.Ref<RequestFacts>>() {}

/** Adds facts to the request's log line; does nothing outside a request. */
export const note = (facts: RequestFacts) =>
  Effect.serviceOption(RequestNotes).pipe(
    Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: (notes) => Ref.update(notes, (all) => ({ ...all, ...facts })) }))
  )
