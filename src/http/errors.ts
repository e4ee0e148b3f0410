/**
 * The one place where typed failures become responses (spec §2.4, §7): each error maps to exactly
 * one status and message per endpoint, and a defect to the endpoint's 500, logged, never shown.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import { failedCheck } from "../domain/describeChecks.ts"
import type { ApiKeyError, DescribeError } from "../domain/errors.ts"
import { addToRequestLog } from "../services/RequestFacts.ts"

type Responses<E extends { readonly _tag: string }> = {
  readonly [Tag in E["_tag"]]: (error: Extract<E, { readonly _tag: Tag }>) => readonly [status: number, message: string]
}

/** §2.4: the status, `Content-Type: application/json`, and `{"error": "<message>"}`. */
export const errorResponse = (status: number, message: string, headers?: Record<string, string>) =>
  HttpServerResponse.unsafeJson({ error: message }, { status, ...(headers ? { headers } : {}) })

const lookup = <E extends { readonly _tag: string }>(responses: Responses<E>) => (error: E) =>
  (responses[error._tag as E["_tag"]] as (error: E) => readonly [status: number, message: string])(error)

const respond = <E extends { readonly _tag: string }>(responses: Responses<E>) => (error: E) =>
  errorResponse(...lookup(responses)(error))

/** §7.2, `GET /api/tokens`. */
const tokensResponses: Responses<ApiKeyError> = {
  ApiKeyMissing: () => [401, "Missing or invalid authentication token"],
  ApiKeyInvalid: () => [401, "Invalid or expired token"],
  ApiKeyMalformed: () => [400, "Malformed token: missing userId"],
  ApiKeyRevoked: () => [401, "Unauthorized, invalid token"],
  AccountNotFound: () => [404, "User not found"]
}

export const tokensErrorResponse = respond(tokensResponses)

/** The status and message of a `/tokens` failure (for the OpenAPI document). */
export const tokensStatusAndMessage = lookup(tokensResponses)

/** §7.1, `POST /api/describe`, from the table of its checks; an answer given unread closes the connection. */
export const describeErrorResponse = (error: DescribeError) => {
  const { closes, message, status } = failedCheck(error)
  return errorResponse(status, message, closes ? { connection: "close" } : undefined)
}

/**
 * A defect (a database that failed, a bug): logged with its cause, answered with the endpoint's
 * generic 500; the request's line says `errorKind=Unexpected`, as its usage row does.
 */
const unexpected = (message: string) => (cause: Cause.Cause<unknown>) =>
  Effect.logError("unexpected failure", cause).pipe(
    Effect.zipRight(addToRequestLog({ errorKind: "Unexpected" })),
    Effect.as(errorResponse(500, message))
  )

/** What the platform answers, itself, for a request interrupted from outside: the shutdown deadline's cut. */
const isCut = (response: HttpServerResponse.HttpServerResponse) => response.status === 503 && response.body._tag === "Empty"

/**
 * The endpoint's generic 500 for whatever its own handlers do not answer: a defect, and a request
 * cut by the shutdown deadline, which the platform answers past the route's handlers with an empty
 * 503 (§7: every error is JSON, and the retryable one is this 500); the request's log line says
 * the 500 too.
 */
export const failingWith = (message: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A | HttpServerResponse.HttpServerResponse, never, R> =>
  HttpApp.appendPreResponseHandler((_, response) =>
    isCut(response) ? Effect.as(addToRequestLog({ status: 500 }), errorResponse(500, message)) : Effect.succeed(response)
  ).pipe(Effect.zipRight(self), Effect.catchAllCause(unexpected(message)))
