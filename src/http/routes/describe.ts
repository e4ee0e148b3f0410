/**
 * `POST /api/describe` (spec §4.1): check 1 here, then the describe use case
 * (services/describeImage.ts) on the upload read at the edge (upload.ts); each failure is a typed
 * error that `describeErrorResponse` answers from the table of checks (domain/describeChecks.ts).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { describeKeyError } from "../../domain/describeChecks.ts"
import type { StoredAnswer } from "../../domain/idempotency.ts"
import { addToRequestLog, failureFacts } from "../../services/RequestFacts.ts"
import { ApiKeys } from "../../services/ApiKeys.ts"
import { describeImage } from "../../services/describeImage.ts"
import { describedAnswer, describeOnce } from "../../services/describeOnce.ts"
import { withoutIdleTimeout } from "../connections.ts"
import { describeErrorResponse, failingWith } from "../errors.ts"
import { readDescribeUpload } from "../upload.ts"

/** Check 1: every rejection but a missing header is the same 401 on this endpoint (§7.1). */
export const authenticate = (authorization: string | undefined) =>
  Effect.flatMap(ApiKeys, (keys) => keys.authenticate(authorization)).pipe(Effect.mapError(describeKeyError))

/** A 200, or the stored 200 of its `Idempotency-Key` again (README, "Retries without paying twice"). */
const resultResponse = ({ answer, replayed }: { readonly answer: StoredAnswer; readonly replayed: boolean }) =>
  HttpServerResponse.text(answer.body, {
    contentType: "application/json",
    headers: replayed ? { ...answer.headers, "idempotent-replayed": "true" } : answer.headers
  })

/**
 * Checks 2 to 7 run on the upload once the caller is known. Each of their waits has a deadline of
 * its own (the upload's, the model's), so the connection's idle timer is off meanwhile: a model
 * slower than it would otherwise cut the client off.
 */
export const describe = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { account, key } = yield* authenticate(request.headers.authorization)
  const caller = { accountId: account.id, keyId: key.id, form: readDescribeUpload(request, account.id) }
  const idempotencyKey = request.headers["idempotency-key"]
  const answer = yield* (idempotencyKey === undefined
    ? Effect.map(describeImage(caller), (described) => ({ answer: describedAnswer(described), replayed: false }))
    : describeOnce({ ...caller, idempotencyKey })).pipe(withoutIdleTimeout(request))
  return resultResponse(answer)
}).pipe(
  Effect.catchAll((error) =>
    addToRequestLog(failureFacts(error)).pipe(
      Effect.as(describeErrorResponse(error))
    )),
  failingWith("Internal Server Error"),
  Effect.withSpan("POST /api/describe")
)
