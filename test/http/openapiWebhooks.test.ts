import { describe, expect, it } from "vitest"
import { openApiDocument } from "../../src/http/openapi.ts"
import { batchSummary, countsOf, itemEventData } from "../../src/domain/batch.ts"
import { eventBody, signedHeaders, webhookEventTypes } from "../../src/domain/webhooks.ts"
import { problems } from "../support/jsonSchema.ts"

const batchId = "6f1c2a9e-4b7d-4e8a-9c3f-1a2b3c4d5e6f"
const at = new Date("2026-11-23T10:00:00Z")
const batch = {
  id: batchId, status: "completed", createdAt: at, completedAt: at, webhookUrl: "https://shop.example.com/hooks", itemEvents: true, total: 2
} as const

describe("the OpenAPI document's webhooks", () => {
  const webhooks = openApiDocument("/").webhooks
  const schemaOf = (type: keyof typeof webhooks) => webhooks[type].post.requestBody.content["application/json"].schema

  it("describe batch.completed as it is sent: its headers, and a body the schema accepts", () => {
    const summary = batchSummary(batch, countsOf(2, [{ state: "succeeded", count: 1 }, { state: "failed", count: 1 }]))
    const body = eventBody(webhookEventTypes.batchCompleted, at, { batchId: summary.id, status: summary.status, counts: summary.counts })
    expect(problems(schemaOf(webhookEventTypes.batchCompleted), JSON.parse(body))).toEqual([])
    const sent = signedHeaders(["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"], { id: "msg_1", timestamp: 1, body })
    expect(webhooks[webhookEventTypes.batchCompleted].post.parameters.map((parameter) => parameter.name)).toEqual(Object.keys(sent))
  })

  it("describe batch.item.completed as it is sent, a success and a failure", () => {
    for (const item of [
      { position: 0, state: "succeeded", metadata: `{"sku":"A-1"}`, status: 200, error: null, result: `{"title":"A red bicycle"}`, contentLanguage: "en", describer: "offline" },
      { position: 1, state: "failed", metadata: null, status: 400, error: "Bad Request, Invalid image file", result: null, contentLanguage: null, describer: null }
    ] as const) {
      const body = eventBody(webhookEventTypes.batchItemCompleted, at, itemEventData(batchId, item))
      expect(problems(schemaOf(webhookEventTypes.batchItemCompleted), JSON.parse(body))).toEqual([])
    }
    expect(problems(schemaOf(webhookEventTypes.batchItemCompleted), JSON.parse(eventBody(webhookEventTypes.batchItemCompleted, at, { index: 0 }))))
      .not.toEqual([])
  })
})
