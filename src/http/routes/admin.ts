/**
 * `POST /admin/commands`: the operator CLI's way into a running service that holds the embedded
 * database. Guarded by the operator token the service publishes in its data folder (0600).
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Context, Effect, Option, Redacted } from "effect"
import { AdminCommand, describeAdminError, runCommand } from "../../cli/commands.ts"
import { errorResponse, unexpected } from "../errors.ts"
import { sameSecret } from "../sameSecret.ts"

/** The token of the admin route; none when the route is closed (e.g. on PostgreSQL). */
export class OperatorToken extends Context.Tag("OperatorToken")<OperatorToken, Option.Option<Redacted.Redacted>>() {}

export const admin = Effect.gen(function* () {
  const token = yield* OperatorToken
  const request = yield* HttpServerRequest.HttpServerRequest
  if (Option.isNone(token)) return errorResponse(404, "Not found")
  if (!sameSecret(request.headers.authorization ?? "", `Bearer ${Redacted.value(token.value)}`)) {
    return errorResponse(401, "Unauthorized")
  }
  const command = yield* HttpServerRequest.schemaBodyJson(AdminCommand)
  return yield* runCommand(command).pipe(
    Effect.map((result) => HttpServerResponse.unsafeJson(result)),
    Effect.catchAll((error) => Effect.succeed(errorResponse(error._tag === "InvalidCommand" ? 400 : 404, describeAdminError(error))))
  )
}).pipe(
  Effect.catchTags({
    ParseError: () => Effect.succeed(errorResponse(400, "Bad Request, not an operator command")),
    RequestError: () => Effect.succeed(errorResponse(400, "Bad Request, not an operator command"))
  }),
  Effect.catchAllCause(unexpected("Internal Server Error"))
)

