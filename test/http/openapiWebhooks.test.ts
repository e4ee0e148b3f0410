import { describe, expect, it } from "vitest"
import { openApiDocument } from "../../src/http/openapi.ts"
import { eventBody, signedHeaders, webhookEventTypes } from "../../src/domain/webhooks.ts"
import { problems } from "../support/jsonSchema.ts"

describe("the OpenAPI document's webhooks", () => {
  const event = openApiDocument("/").webhooks[webhookEventTypes.batchCompleted].post

  it("describe batch.completed as it is sent: its headers, and a body the schema accepts", () => {
    const body = eventBody(webhookEventTypes.batchCompleted, new Date("2026-11-23T10:00:00Z"), { batchId: "b1" })
    expect(problems(event.requestBody.content["application/json"].schema, JSON.parse(body))).toEqual([])
    const sent = signedHeaders(["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"], { id: "msg_1", timestamp: 1, body })
    expect(event.parameters.map((parameter) => parameter.name)).toEqual(Object.keys(sent))
  })
})
