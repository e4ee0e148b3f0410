/**
 * `POST /admin/commands`: the operator CLI's way into a running service that holds the embedded
 * database. Guarded by the operator token the service publishes in its data folder (0600), and
 * answered to this machine only (../localRequest.ts), where the CLI runs: from elsewhere it does
 * not exist, whatever token is tried (found by review: it answered 401 on every interface).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { AppConfig } from "../../config/AppConfig.ts"
import { AdminCommand, describeAdminError } from "../../cli/adminCommand.ts"
import { runCommand } from "../../cli/commands.ts"
import { readSmallBody } from "../connections.ts"
import { errorResponse, failingWith } from "../errors.ts"
import { isFromThisMachine } from "../localRequest.ts"
import { sameSecret } from "../sameSecret.ts"

/** The token of the admin route; none when the route is closed (e.g. on PostgreSQL). */
export class OperatorToken extends Context.Tag("OperatorToken")<OperatorToken, Option.Option<Redacted.Redacted>>() {}

/** An operator command is a few hundred bytes; a subscription's description may make it a few KB. */
const maxCommandBytes = 64 * 1024

/** A command body over `maxCommandBytes`, not in by `FORM_TIMEOUT_MS`, or cut off by the client. */
class CommandCutOff extends Schema.TaggedError<CommandCutOff>()("CommandCutOff", {}) {}

export const admin = Effect.gen(function* () {
  const token = yield* OperatorToken
  const request = yield* HttpServerRequest.HttpServerRequest
  const { formTimeout } = yield* AppConfig
  if (Option.isNone(token) || !isFromThisMachine(request)) return errorResponse(404, "Not found")
  if (!sameSecret(request.headers.authorization ?? "", `Bearer ${Redacted.value(token.value)}`)) {
    return errorResponse(401, "Unauthorized")
  }
  const body = yield* readSmallBody(request, { maxBytes: maxCommandBytes, timeout: formTimeout }, () => new CommandCutOff())
  const command = yield* Schema.decodeUnknown(Schema.parseJson(AdminCommand))(new TextDecoder().decode(body))
  return yield* runCommand(command).pipe(
    Effect.map((result) => HttpServerResponse.unsafeJson(result)),
    Effect.catchAll((error) => Effect.succeed(errorResponse(error._tag === "InvalidCommand" ? 400 : 404, describeAdminError(error))))
  )
}).pipe(
  Effect.catchTags({
    ParseError: () => Effect.succeed(errorResponse(400, "Bad Request, not an operator command")),
    // Not read to its end: the connection is closed after the answer.
    CommandCutOff: () =>
      Effect.succeed(errorResponse(400, "Bad Request, not an operator command").pipe(HttpServerResponse.setHeader("connection", "close")))
  }),
  failingWith("Internal Server Error")
)

