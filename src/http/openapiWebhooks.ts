/**
 * The events the service POSTs to a `webhookUrl` (README, "Webhooks"), as OpenAPI 3.1 `webhooks`:
 * the Standard Webhooks headers and payload. The receiver's answer: any 2xx accepts the event.
 */
import { webhookEventTypes } from "../domain/webhooks.ts"
import { counts, item, summaryProperties } from "./openapiBatches.ts"

const signedHeader = (description: string, example: string) => ({ required: true, description, schema: { type: "string" }, example })

const batchId = { type: "string", format: "uuid", description: "The batch's `id`" }

/** One event's operation: what every event shares (headers, retries, answer), and its own `data`. */
const eventPost = <Type extends string>(event: {
  readonly type: Type
  readonly operationId: string
  readonly summary: string
  readonly sent: string
  readonly timestamp: string
  readonly data: object
}) => ({
  post: {
    operationId: event.operationId,
    summary: event.summary,
    description: `Sent to the batch's \`webhookUrl\` ${event.sent}, signed per the Standard Webhooks specification with the account's secret (dashboard, Webhooks). Retried on any answer but a 2xx (redirects are not followed) after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then abandoned; every attempt is listed on the dashboard. The same \`webhook-id\` on every attempt: use it to ignore repeats.`,
    tags: ["Webhooks"],
    security: [],
    parameters: [
      { name: "webhook-id", in: "header", ...signedHeader("The event's id, the same on every attempt", "msg_2b1f0c8e6a9d4f7e8c3b5a1d0e9f8a7b") },
      { name: "webhook-timestamp", in: "header", ...signedHeader("When this attempt was sent, in seconds since the epoch; refuse one far from now", "1764000000") },
      { name: "webhook-signature", in: "header", ...signedHeader("`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_`; several, space-separated, may come", "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=") }
    ],
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["type", "timestamp", "data"],
            properties: {
              type: { type: "string", const: event.type },
              timestamp: { type: "string", format: "date-time", description: event.timestamp },
              data: event.data
            }
          }
        }
      }
    },
    responses: { "2XX": { description: "Accepted: the event is delivered and not sent again" } }
  }
})

export const webhookDocument = {
  [webhookEventTypes.batchCompleted]: eventPost({
    type: webhookEventTypes.batchCompleted,
    operationId: "batchCompleted",
    summary: "A batch has completed",
    sent: "once all its items are done",
    timestamp: "When the batch completed (ISO 8601)",
    data: {
      type: "object",
      required: ["batchId", "status", "counts"],
      description: "The batch's id, and its status and counts as `GET /api/batches/{id}` gives them",
      properties: { batchId, status: summaryProperties.status, counts }
    }
  }),
  [webhookEventTypes.batchItemCompleted]: eventPost({
    type: webhookEventTypes.batchItemCompleted,
    operationId: "batchItemCompleted",
    summary: "An item of a batch has ended",
    sent: "as each item succeeds or fails, when the batch was created with `itemEvents: true` (canceled items send none)",
    timestamp: "When the item ended (ISO 8601)",
    data: {
      ...item,
      required: ["batchId", ...item.required],
      description: "The batch's id and the item, as `GET /api/batches/{id}` lists it",
      properties: { batchId, ...item.properties }
    }
  })
} as const
