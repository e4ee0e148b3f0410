/** `GET /api/tokens` (spec §4.2): checks a key and reports the account's status; uses no credit. */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { accountStatus } from "../../domain/accountStatus.ts"
import { Accounts } from "../../services/Accounts.ts"
import { ApiKeys } from "../../services/ApiKeys.ts"
import { tokensErrorResponse, failingWith } from "../errors.ts"

export const tokens = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { account, key } = yield* ApiKeys.pipe(Effect.flatMap((keys) => keys.authenticate(request.headers.authorization)))
  const subscription = yield* Accounts.pipe(Effect.flatMap((accounts) => accounts.subscription(account.id)))
  const now = new Date(yield* Clock.currentTimeMillis)
  return HttpServerResponse.unsafeJson(accountStatus(account, key, subscription, now))
}).pipe(
  Effect.catchAll((error) => Effect.succeed(tokensErrorResponse(error))),
  failingWith("Server error"),
  Effect.withSpan("GET /api/tokens")
)
