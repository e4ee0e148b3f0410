/**
 * `POST /api/describe` (spec §4.1): check 1 here, then the describe use case
 * (services/describeImage.ts) on the upload read at the edge (upload.ts); each failure is a typed
 * error that `describeError` answers from the table of checks (domain/describeChecks.ts).
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { describeResultJson } from "../../domain/describe.ts"
import { describeKeyError } from "../../domain/describeChecks.ts"
import { note } from "../../requestNotes.ts"
import { ApiKeys } from "../../services/ApiKeys.ts"
import { type Described, describeImage } from "../../services/describeImage.ts"
import { withoutIdleTimeout } from "../connections.ts"
import { describeError, unexpected } from "../errors.ts"
import { readUpload } from "../upload.ts"

/** Check 1: every rejection but a missing header is the same 401 on this endpoint (§7.1). */
const authenticate = (authorization: string | undefined) =>
  Effect.flatMap(ApiKeys, (keys) => keys.authenticate(authorization)).pipe(Effect.mapError(describeKeyError))

/**
 * §2.1: the values with the keys in the requested order; the language they are written in and the
 * describer that wrote them, so a client can tell placeholder text from a model's (README).
 */
const resultResponse = (described: Described) =>
  HttpServerResponse.text(describeResultJson(described.entries), {
    contentType: "application/json",
    headers: { "content-language": described.language, "x-describer": described.describer }
  })

/**
 * Checks 2 to 7 run on the upload once the caller is known. Each of their waits has a deadline of
 * its own (the upload's, the model's), so the connection's idle timer is off meanwhile: a model
 * slower than it would otherwise cut the client off.
 */
export const describe = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { account, key } = yield* authenticate(request.headers.authorization)
  const described = yield* describeImage({ accountId: account.id, keyId: key.id, form: readUpload(request, account.id) }).pipe(
    withoutIdleTimeout(request)
  )
  return resultResponse(described)
}).pipe(
  Effect.catchAll((error) => note({ errorKind: error._tag }).pipe(Effect.as(describeError(error)))),
  Effect.catchAllCause(unexpected("Internal Server Error")),
  Effect.withSpan("POST /api/describe")
)
