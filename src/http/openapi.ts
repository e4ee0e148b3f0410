/**
 * The OpenAPI 3.1 document of the public API, served at `/api/openapi.json` and rendered at
 * `/api/docs`. Its error responses and examples come from the tables that answer requests
 * (`openapiErrors.ts`), so the document cannot drift from the responses.
 */
import { limits } from "../domain/limits.ts"
import { batchPaths, idempotencyKeySchema } from "./openapiBatches.ts"
import { describeFailures, describePatterns, errorResponses, tokensFailures } from "./openapiErrors.ts"
import { webhookDocument } from "./openapiWebhooks.ts"

const isoDate = { type: "string", format: "date-time" }
const nullableDate = { type: ["string", "null"], format: "date-time" }

const accountStatus = {
  type: "object",
  required: ["subscription", "token", "user", "success"],
  properties: {
    subscription: {
      oneOf: [
        { type: "object", required: ["isSubscribed"], additionalProperties: false, properties: { isSubscribed: { const: false } } },
        {
          type: "object",
          required: ["isSubscribed", "plan", "status", "statusFormatted", "renewsAt", "endsAt"],
          properties: {
            isSubscribed: { const: true },
            plan: { type: "object", required: ["name", "description"], properties: { name: { type: "string" }, description: { type: "string", description: "HTML" } } },
            status: { type: "string" },
            statusFormatted: { type: "string" },
            renewsAt: nullableDate,
            endsAt: nullableDate
          }
        }
      ]
    },
    token: {
      type: "object",
      required: ["name", "createdAt", "expiredAt"],
      properties: { name: { type: ["string", "null"] }, createdAt: isoDate, expiredAt: isoDate }
    },
    user: {
      type: "object",
      required: ["credits", "id", "registeredAt", "name", "email"],
      properties: {
        credits: { type: "number", description: "The balance to rely on: credits never expire" },
        id: { type: "string" },
        registeredAt: isoDate,
        name: { type: "string", description: "The key's name, or `User`" },
        email: { const: "Not available" }
      }
    },
    success: { const: true }
  }
}

const accountStatusExample = {
  subscription: { isSubscribed: false },
  token: { name: "Production", createdAt: "2026-01-05T09:30:00.000Z", expiredAt: "2027-01-05T09:30:00.000Z" },
  user: { credits: 42, id: "0f8e2c4a-7b1d-4e5f-9a3c-2d6b8e1f4a70", registeredAt: "2025-12-01T14:00:00.000Z", name: "Production", email: "Not available" },
  success: true
}

const describeResult = {
  type: "object",
  description: "Without a schema: `title`, `alternativeText`, `caption` and `alt_text` (a copy of `alternativeText`). With a schema: exactly its keys.",
  additionalProperties: { type: "string" }
}

const describeExamples = {
  default: {
    summary: "Without a schema",
    value: { title: "Red bicycle by a canal", alternativeText: "A red bicycle leaning on a railing beside a canal", caption: "A quiet morning by the water", alt_text: "A red bicycle leaning on a railing beside a canal" }
  },
  schema: { summary: "With the schema {\"tags\": \"Three tags\"}", value: { tags: "bicycle, canal, morning" } }
}

/** A ready-to-paste request; the server is a placeholder unless `PUBLIC_URL` names it. */
const curl = (server: string, lines: ReadonlyArray<string>) => [{
  lang: "curl",
  label: "curl",
  source: [`curl ${server === "/" ? "https://YOUR-SERVER" : server}${lines[0]}`, ...lines.slice(1)].join(" \\\n  ")
}]

const describeCheckList = `Checks, in this order; the first that fails answers (the examples of each status list every failure):

1. the key (\`Authorization: Bearer <key>\`);
2. the credits: at least one;
3. the body size: above 11 MB it is refused before it is read;
4. the form: \`multipart/form-data\` with an \`image\` file or an \`imageUrl\`;
5. the \`schema\`, when given;
6. the image (fetched first when given by \`imageUrl\`): its format, size and pixels;
7. the generation.

A success uses **one credit**; a failure uses none.`

const tokensOperation = (server: string, path: string) => ({
  tags: ["Keys"],
  "x-codeSamples": curl(server, [path, `-H "Authorization: Bearer $API_KEY"`]),
  responses: {
    "200": {
      description: "The account status",
      content: { "application/json": { schema: accountStatus, examples: { default: { summary: "A valid key", value: accountStatusExample } } } }
    },
    ...errorResponses(tokensFailures)
  }
})

/** The document, with `server` (`PUBLIC_URL`, or `/`: the host that serves it) as its server. */
export const openApiDocument = (server: string) => ({
  openapi: "3.1.0",
  info: {
    title: "Image metadata API",
    version: "1",
    description: "Upload an image; get a title, alternative text, caption or any fields you ask for, in the language you ask for. Send requests from **servers**, never from browser code: the key would be readable by anyone."
  },
  servers: [{ url: server, description: server === "/" ? "This server" : "The public address of this service" }],
  tags: [
    { name: "Describe", description: "Metadata for an image: one credit per success." },
    { name: "Keys", description: "Check a key and read the balance, free." },
    { name: "Batches", description: "Many images by URL, described in the background: one credit per success." },
    { name: "Webhooks", description: "Signed events the service sends to your `webhookUrl` (Standard Webhooks)." }
  ],
  components: {
    securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "An API key from the dashboard" } }
  },
  security: [{ apiKey: [] }],
  webhooks: webhookDocument,
  paths: {
    "/api/describe": {
      post: {
        operationId: "describeImage",
        tags: ["Describe"],
        summary: "Describe an image (1 credit on success, none on failure)",
        description: describeCheckList,
        "x-codeSamples": curl(server, ["/api/describe", `-H "Authorization: Bearer $API_KEY"`, "-F image=@photo.jpg", "-F language=fr", `-F 'schema={"tags": "Three tags"}'`]),
        parameters: [{
          name: "Idempotency-Key",
          in: "header",
          required: false,
          description: "1 to 255 printable characters, of the account: a retry of the same request (same fields, same image) within 24 hours gets the first 200 again, uncharged, even on an empty balance; failures are not kept",
          schema: idempotencyKeySchema
        }],
        requestBody: {
          required: true,
          content: {
            "multipart/form-data": {
              schema: {
                type: "object",
                // One of the two; the file wins when both are sent.
                anyOf: [{ required: ["image"] }, { required: ["imageUrl"] }],
                properties: {
                  image: { type: "string", format: "binary", description: `JPEG, PNG, WebP or GIF, at most ${limits.imageBytes / 1024 / 1024} MB; the format is read from the content` },
                  imageUrl: {
                    type: "string",
                    format: "uri",
                    description: "Instead of `image`: an http or https URL of the image, fetched by the service (public addresses only, at most 3 redirects and 10 MB); ignored when `image` is sent"
                  },
                  schema: { type: "string", description: `JSON object of field name -> description; at most ${limits.schemaFields} fields, names up to ${limits.fieldNameLength} characters, descriptions up to ${limits.fieldDescriptionLength}` },
                  keywords: { type: "string", description: `Comma-separated; the first ${limits.keywordsLength} characters are used` },
                  context: { type: "string", description: `Free text; the first ${limits.contextLength} characters are used` },
                  language: { type: "string", maxLength: limits.languageLength, default: "en", description: "A code (`en`, `pt-BR`) or a name (`French`)" }
                }
              },
              examples: {
                default: { summary: "An image, in French, with a field of your own", value: { image: "(the image file)", language: "fr", schema: "{\"tags\": \"Three tags\"}" } }
              }
            }
          }
        },
        responses: {
          "200": {
            description: "The describe result",
            headers: {
              "Content-Language": {
                description: "The language the values are written in (BCP 47); `und` when a model was asked for a language name that maps to no known language",
                schema: { type: "string" }
              },
              "X-Describer": {
                description: "What wrote the values: `openai-compatible` (an AI model) or `offline` (placeholder text from the image's shape and colours, when no model is configured)",
                schema: { type: "string", enum: ["openai-compatible", "offline"] }
              },
              "Idempotent-Replayed": {
                description: "`true` when this is the stored 200 of an earlier request with the same `Idempotency-Key` (no credit used)",
                schema: { type: "string", enum: ["true"] }
              }
            },
            content: { "application/json": { schema: describeResult, examples: describeExamples } }
          },
          ...errorResponses(describeFailures, describePatterns)
        }
      }
    },
    "/api/tokens": {
      get: { operationId: "checkKey", summary: "Check a key and read the balance (no credit used)", ...tokensOperation(server, "/api/tokens") }
    },
    "/api/describe/verify": {
      get: {
        operationId: "verifyKey",
        summary: "Compatibility route: the same as GET /api/tokens (no credit used)",
        description: "For clients that check their key at this path (the ForVoyez WordPress plugin): the same answers as `GET /api/tokens`, status and body.",
        ...tokensOperation(server, "/api/describe/verify")
      }
    },
    ...batchPaths((lines) => curl(server, lines))
  }
}) as const

export type OpenApiDocument = ReturnType<typeof openApiDocument>
