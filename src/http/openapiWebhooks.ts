/**
 * The events the service POSTs to a `webhookUrl` (README, "Webhooks"), as OpenAPI 3.1 `webhooks`:
 * the Standard Webhooks headers and payload. The receiver's answer: any 2xx accepts the event.
 */
import { webhookEventTypes } from "../domain/webhooks.ts"

const signedHeader = (description: string, example: string) => ({ required: true, description, schema: { type: "string" }, example })

export const webhookDocument = {
  [webhookEventTypes.batchCompleted]: {
    post: {
      operationId: "batchCompleted",
      summary: "A batch has completed",
      description: "Sent to the batch's `webhookUrl` once all its items are done, signed per the Standard Webhooks specification with the account's secret (dashboard, Webhooks). Retried on any answer but a 2xx (redirects are not followed) after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then abandoned; every attempt is listed on the dashboard. The same `webhook-id` on every attempt: use it to ignore repeats.",
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
                type: { type: "string", const: webhookEventTypes.batchCompleted },
                timestamp: { type: "string", format: "date-time", description: "When the batch completed (ISO 8601)" },
                data: { type: "object", description: "The batch: its id, status and counts, as `GET /api/batches/{id}` gives them" }
              }
            }
          }
        }
      },
      responses: { "2XX": { description: "Accepted: the event is delivered and not sent again" } }
    }
  }
} as const
