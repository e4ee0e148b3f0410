/**
 * The id of the request being served (README, Operations): `src/http/requestLog.ts` puts it on
 * every log line of the request as an annotation, which is also how code below the HTTP edge
 * (a usage row) learns it, without passing it through every call.
 */
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"

export const requestIdAnnotation = "requestId"

/** The current request's id; `null` outside a request (the CLI, a test calling a service). */
export const currentRequestId = Effect.map(Effect.logAnnotations, (annotations) =>
  HashMap.get(annotations, requestIdAnnotation).pipe(
    Option.filter((value): value is string => typeof value === "string"),
    Option.getOrNull
  ))
