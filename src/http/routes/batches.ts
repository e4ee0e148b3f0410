/**
 * The batch endpoints (README, "Batches"): `POST /api/batches`, `GET /api/batches`,
 * `GET /api/batches/{id}`, `DELETE /api/batches/{id}`. Callers are authenticated as on
 * `POST /api/describe` (check 1 of §4.1, its 401s), before anything else is read.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { AppConfig } from "../../config/AppConfig.ts"
import { batchJson, itemJson } from "../../domain/batch.ts"
import { batchInputMessages, batchLimits, parseBatchInput } from "../../domain/batchInput.ts"
import { BatchBodyRefused, BatchInvalid, type BatchNotFound, type BatchQueueFull, IdempotencyKeyInvalid } from "../../domain/errors.ts"
import { isValidKey } from "../../domain/idempotency.ts"
import { Batches } from "../../services/Batches.ts"
import { readSmallBody } from "../connections.ts"
import { describeErrorResponse, errorResponse, failingWith } from "../errors.ts"
import { authenticate } from "./describe.ts"

/** The list's page size: `limit`, 20 when absent. */
export const pageSizes = { default: 20, max: 100 } as const

const MB = 1024 * 1024

/** The answers of the batch endpoints' own failures; check 1's are the describe's. */
export const batchMessages = {
  tooLarge: `Request too large: the maximum is ${batchLimits.bodyBytes / MB} MB`,
  notJson: batchInputMessages.notJson,
  notFound: "Batch not found",
  queueFull: `Too Many Requests, an account may have at most ${batchLimits.queuedItems} items queued`,
  limit: `Bad Request, limit must be a whole number from 1 to ${pageSizes.max}`,
  before: "Bad Request, before must be the id of one of the account's batches, as in next"
} as const

const batchErrors = <A, R>(route: Effect.Effect<A, BatchInvalid | BatchBodyRefused | BatchNotFound | BatchQueueFull | Parameters<typeof describeErrorResponse>[0], R>) =>
  route.pipe(
    Effect.catchAll((error) => {
      switch (error._tag) {
        case "BatchInvalid":
          return Effect.succeed(errorResponse(400, error.message))
        case "BatchBodyRefused":
          // Not read to its end: the connection is closed after the answer.
          return Effect.succeed(error.reason === "tooLarge"
            ? errorResponse(413, batchMessages.tooLarge, { connection: "close" })
            : errorResponse(400, batchMessages.notJson, { connection: "close" }))
        case "BatchNotFound":
          return Effect.succeed(errorResponse(404, batchMessages.notFound))
        case "BatchQueueFull":
          return Effect.succeed(errorResponse(429, batchMessages.queueFull))
        default:
          return Effect.succeed(describeErrorResponse(error))
      }
    }),
    failingWith("Internal Server Error")
  )

const caller = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => authenticate(request.headers.authorization))

const json = (body: unknown, status = 200, headers?: Record<string, string>) =>
  HttpServerResponse.unsafeJson(body, { status, ...(headers ? { headers } : {}) })

export const createBatch = batchErrors(Effect.gen(function* () {
  const { account, key } = yield* caller
  const request = yield* HttpServerRequest.HttpServerRequest
  const { formTimeout } = yield* AppConfig
  const body = yield* readSmallBody(request, { maxBytes: batchLimits.bodyBytes, timeout: formTimeout }, (reason) => new BatchBodyRefused({ reason }))
  const input = yield* Either.match(parseBatchInput(new TextDecoder().decode(body)), { onLeft: Effect.fail, onRight: Effect.succeed })
  // As on /api/describe (README, "Retries without paying twice"): a retry of a lost 202 gets the same batch.
  const idempotencyKey = Option.fromNullable(request.headers["idempotency-key"])
  if (Option.isSome(idempotencyKey) && !isValidKey(idempotencyKey.value)) return yield* new IdempotencyKeyInvalid()
  const { summary, replayed } = yield* Effect.flatMap(Batches, (batches) => batches.create(account.id, key.id, input, idempotencyKey))
  return json(summary, 202, { location: `/api/batches/${summary.id}`, ...(replayed ? { "idempotent-replayed": "true" } : {}) })
})).pipe(Effect.withSpan("POST /api/batches"))

export const listBatches = batchErrors(Effect.gen(function* () {
  const { account } = yield* caller
  const request = yield* HttpServerRequest.HttpServerRequest
  const query = new URL(request.url, "http://localhost").searchParams
  const limitText = query.get("limit")
  const limit = limitText === null ? pageSizes.default : Number(limitText)
  if (!Number.isInteger(limit) || limit < 1 || limit > pageSizes.max || (limitText !== null && !/^\d+$/.test(limitText))) {
    return yield* new BatchInvalid({ message: batchMessages.limit })
  }
  const page = yield* Effect.flatMap(Batches, (batches) => batches.list(account.id, { limit, before: Option.fromNullable(query.get("before")) })).pipe(
    Effect.catchTag("BatchNotFound", () => new BatchInvalid({ message: batchMessages.before }))
  )
  return json({
    batches: page.batches,
    next: Option.match(page.next, { onNone: () => null, onSome: (before) => `/api/batches?before=${before}&limit=${limit}` })
  })
})).pipe(Effect.withSpan("GET /api/batches"))

export const getBatch = batchErrors(Effect.gen(function* () {
  const { account } = yield* caller
  const { id } = yield* HttpRouter.params
  const { summary, items } = yield* Effect.flatMap(Batches, (batches) => batches.get(account.id, id ?? ""))
  return HttpServerResponse.text(batchJson(summary, items.map(itemJson)), { contentType: "application/json" })
})).pipe(Effect.withSpan("GET /api/batches/{id}"))

export const cancelBatch = batchErrors(Effect.gen(function* () {
  const { account } = yield* caller
  const { id } = yield* HttpRouter.params
  return json(yield* Effect.flatMap(Batches, (batches) => batches.cancel(account.id, id ?? "")))
})).pipe(Effect.withSpan("DELETE /api/batches/{id}"))
