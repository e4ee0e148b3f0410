/**
 * The batch endpoints in the OpenAPI document (README, "Batches"): their bodies, and their error
 * responses from the messages the routes answer with (routes/batches.ts, domain/batchInput.ts).
 */
import { batchLimits, batchInputMessages } from "../domain/batchInput.ts"
import { describeChecks } from "../domain/describeChecks.ts"
import { errorResponses, type Failure } from "./openapiErrors.ts"
import { batchMessages, pageSizes } from "./routes/batches.ts"

/** Check 1 of §4.1, as on `POST /api/describe`. */
const keyFailures: ReadonlyArray<Failure> = [
  { name: "ApiKeyMissing", summary: "Check 1: no key", status: 401, message: describeChecks.ApiKeyMissing.message },
  { name: "KeyRejected", summary: "Check 1: a key that is not valid", status: 401, message: describeChecks.KeyRejected.message }
]
const serverError: Failure = { name: "ServerError", summary: "an unexpected failure, logged", status: 500, message: "Internal Server Error" }
const notFound: Failure = { name: "BatchNotFound", summary: "no batch of the account has this id", status: 404, message: batchMessages.notFound }

export const createFailures: ReadonlyArray<Failure> = [
  ...keyFailures,
  { name: "NotJson", summary: "the body is not JSON", status: 400, message: batchInputMessages.notJson },
  { name: "Items", summary: "no items, or too many", status: 400, message: batchInputMessages.items },
  { name: "Item", summary: "an item that is not an object", status: 400, message: "Bad Request, items[3] must be an object" },
  { name: "ItemText", summary: "a text field of an item that is not a string (likewise keywords, context, language)", status: 400, message: "Bad Request, items[0].imageUrl must be a string" },
  { name: "ItemSchema", summary: "an item's schema neither JSON text nor an object", status: 400, message: "Bad Request, items[3].schema must be a string or an object" },
  { name: "ItemUrlCredentials", summary: "an item's imageUrl with a user name or password", status: 400, message: "Bad Request, items[0].imageUrl must be a URL without a user name or password" },
  { name: "Metadata", summary: "an item's metadata too large", status: 400, message: `Bad Request, items[0].metadata must be at most ${batchLimits.metadataBytes} bytes of JSON` },
  { name: "Nesting", summary: "the body nested too deeply", status: 400, message: batchInputMessages.nesting },
  { name: "WebhookUrl", summary: "a webhookUrl that is not an http or https URL", status: 400, message: batchInputMessages.webhookUrl },
  { name: "ItemEvents", summary: "itemEvents not a boolean", status: 400, message: batchInputMessages.itemEvents },
  { name: "IdempotencyKeyInvalid", summary: "an Idempotency-Key that is not 1 to 255 printable characters", status: 400, message: describeChecks.IdempotencyKeyInvalid.message },
  { name: "IdempotencyKeyReused", summary: "the Idempotency-Key was used for another batch", status: 422, message: describeChecks.IdempotencyKeyReused.message },
  { name: "QueueFull", summary: "the account has too many items queued", status: 429, message: batchMessages.queueFull },
  { name: "TooLarge", summary: "the body is over its cap", status: 413, message: batchMessages.tooLarge },
  serverError
]
export const createPatterns = { 400: [batchInputMessages.itemPattern] }
export const listFailures: ReadonlyArray<Failure> = [
  ...keyFailures,
  { name: "Limit", summary: "a limit out of range", status: 400, message: batchMessages.limit },
  { name: "Before", summary: "a before that is none of the account's batches", status: 400, message: batchMessages.before },
  serverError
]
export const batchFailures: ReadonlyArray<Failure> = [...keyFailures, notFound, serverError]

const text = { type: "string" }
export const counts = {
  type: "object",
  required: ["total", "queued", "running", "succeeded", "failed", "canceled"],
  properties: Object.fromEntries(["total", "queued", "running", "succeeded", "failed", "canceled"].map((name) => [name, { type: "integer", minimum: 0 }]))
}
export const summaryProperties = {
  id: { type: "string", format: "uuid" },
  status: { type: "string", enum: ["queued", "running", "completed", "canceled"], description: "`canceled` once DELETE canceled an item; ended when `completedAt` is set" },
  createdAt: { type: "string", format: "date-time" },
  completedAt: { type: ["string", "null"], format: "date-time", description: "When no item was left to run (the `batch.completed` event)" },
  webhookUrl: { type: ["string", "null"] },
  itemEvents: { type: "boolean" },
  counts
}
const summary = { type: "object", required: Object.keys(summaryProperties), properties: summaryProperties }
export const item = {
  type: "object",
  required: ["index", "state"],
  properties: {
    index: { type: "integer", minimum: 0, description: "The item's place in `items`" },
    state: { type: "string", enum: ["queued", "running", "succeeded", "failed", "canceled"] },
    status: { type: "integer", description: "The status `POST /api/describe` would have answered" },
    result: { type: "object", additionalProperties: text, description: "On success: the body `POST /api/describe` would have answered" },
    language: { type: "string", description: "On success: the language of the result's values (BCP 47), as `POST /api/describe`'s `Content-Language`" },
    describer: { type: "string", enum: ["openai-compatible", "offline"], description: "On success: what wrote the result, as `POST /api/describe`'s `X-Describer`" },
    error: { type: "string", description: "On failure: the message `POST /api/describe` would have answered" },
    metadata: { description: "The item's `metadata`, as given" }
  }
}
const withItems = { ...summary, required: [...summary.required, "items"], properties: { ...summaryProperties, items: { type: "array", items: item } } }
const json = (schema: object, description: string) => ({ description, content: { "application/json": { schema } } })
const idParameter = { name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } }

/** The `Idempotency-Key` header's value, on both endpoints that take it (domain/idempotency.ts). */
export const idempotencyKeySchema = { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7e]+$" }

export const batchPaths = (curl: (lines: ReadonlyArray<string>) => unknown) => ({
  "/api/batches": {
    post: {
      operationId: "createBatch",
      tags: ["Batches"],
      summary: "Describe up to 1,000 images by URL in the background (1 credit per success)",
      description: `Each item is a describe of its \`imageUrl\`, run later by the service's workers: checked as §4.1 checks a request (a bad item fails alone, with the describe's status and message), charged one credit on success, nothing on failure. An account without credits may create a batch: its items fail with \`${describeChecks.NoCreditLeft.message}\`. The body is at most ${batchLimits.bodyBytes / 1024 / 1024} MB.`,
      "x-codeSamples": curl(["/api/batches", `-H "Authorization: Bearer $API_KEY"`, `-H "Content-Type: application/json"`, `-d '{"items": [{"imageUrl": "https://example.com/a.jpg", "metadata": {"postId": 7}}]}'`]),
      parameters: [{
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description: "1 to 255 printable characters, of the account: a retry of the same batch (same items, fields and webhook) gets that batch again, with `Idempotent-Replayed: true`, for as long as the batch is kept; nothing is queued twice",
        schema: idempotencyKeySchema
      }],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["items"],
              properties: {
                items: {
                  type: "array",
                  minItems: 1,
                  maxItems: batchLimits.items,
                  items: {
                    type: "object",
                    properties: {
                      imageUrl: { type: "string", description: "As `imageUrl` of `POST /api/describe`" },
                      schema: { type: ["string", "object"], description: "As `schema` of `POST /api/describe`, as its JSON text or the object" },
                      keywords: text,
                      context: text,
                      language: text,
                      metadata: { description: `Anything, at most ${batchLimits.metadataBytes} bytes of JSON, echoed back with the item` }
                    }
                  }
                },
                webhookUrl: { type: "string", format: "uri", description: "Where the `batch.completed` event (and with `itemEvents`, a `batch.item.completed` per item) is sent" },
                itemEvents: { type: "boolean", default: false }
              }
            }
          }
        }
      },
      responses: {
        "202": {
          ...json(summary, "The batch, queued (or, for a retry with its Idempotency-Key, as it is now)"),
          headers: {
            Location: { description: "`/api/batches/{id}`", schema: text },
            "Idempotent-Replayed": { description: "`true` when this is the batch of an earlier request with the same `Idempotency-Key`", schema: text }
          }
        },
        ...errorResponses(createFailures, createPatterns)
      }
    },
    get: {
      operationId: "listBatches",
      tags: ["Batches"],
      summary: "The account's batches, newest first",
      parameters: [
        { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: pageSizes.max, default: pageSizes.default } },
        { name: "before", in: "query", required: false, description: "A batch id: the batches older than it (the `next` of the previous page)", schema: text }
      ],
      responses: {
        "200": json({
          type: "object",
          required: ["batches", "next"],
          properties: { batches: { type: "array", items: summary }, next: { type: ["string", "null"], description: "The path of the next page" } }
        }, "A page of batches"),
        ...errorResponses(listFailures)
      }
    }
  },
  "/api/batches/{id}": {
    get: {
      operationId: "getBatch",
      tags: ["Batches"],
      summary: "A batch with each item's result or error",
      parameters: [idParameter],
      responses: { "200": json(withItems, "The batch and its items, in their order"), ...errorResponses(batchFailures) }
    },
    delete: {
      operationId: "cancelBatch",
      tags: ["Batches"],
      summary: "Cancel the items not started (those running finish)",
      parameters: [idParameter],
      responses: { "200": json(summary, "The batch after the cancelation"), ...errorResponses(batchFailures) }
    }
  }
})
