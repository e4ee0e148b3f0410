/**
 * The OpenAPI 3.1 document of the public API (issue 7 §5), served at `/api/openapi.json`. Every
 * error message comes from the same tables that answer requests (`errors.ts`, and for `/describe`
 * every row of `domain/describeChecks.ts`), so the document cannot drift from the responses.
 */
import { schemaRule } from "../domain/schemaFields.ts"
import { type CheckRow, describeChecks, type DescribeErrorOf, type DescribeErrorTag, failedCheck } from "../domain/describeChecks.ts"
import { AccountNotFound, ApiKeyInvalid, ApiKeyMalformed, ApiKeyMissing, ApiKeyRevoked, ImageTooManyPixels, ImageTooManyScans, InvalidSchema } from "../domain/errors.ts"
import type { ApiKeyError, DescribeError } from "../domain/errors.ts"
import { limits } from "../domain/limits.ts"
import { maxJpegScans as maxScans, maxMegapixels } from "../domain/pixelLimits.ts"
import { tokensFailure } from "./errors.ts"

/** The tags whose message depends on the error's fields. */
type VariableTag = { readonly [T in DescribeErrorTag]: (typeof describeChecks)[T]["message"] extends string ? never : T }[DescribeErrorTag]

/**
 * The errors behind the messages that depend on their fields, in the forms documented;
 * `ImageProcessingFailed` carries a cause and is documented by its prefix.
 */
const variableFailures: { readonly [T in VariableTag]: ReadonlyArray<DescribeErrorOf<T>> } = {
  InvalidSchema: Object.values(schemaRule).map((reason) => new InvalidSchema({ reason })),
  ImageTooManyPixels: [new ImageTooManyPixels({ maxMegapixels })],
  ImageTooManyScans: [new ImageTooManyScans({ maxScans })],
  ImageProcessingFailed: []
}

/** Every describe failure's status and message, from the table of its checks. */
const describeFailures = (Object.entries(describeChecks) as ReadonlyArray<[DescribeErrorTag, CheckRow<DescribeError>]>).flatMap(
  ([tag, row]): ReadonlyArray<readonly [number, string]> =>
    typeof row.message === "string"
      ? [[row.status, row.message]]
      : (variableFailures[tag as VariableTag] as ReadonlyArray<DescribeError>).map((error) => {
        const { message, status } = failedCheck(error)
        return [status, message] as const
      })
)

const tokensFailures: ReadonlyArray<ApiKeyError> = [
  new ApiKeyMissing(), new ApiKeyInvalid(), new ApiKeyMalformed(), new ApiKeyRevoked(), new AccountNotFound()
]

const errorBody = (messages: ReadonlyArray<string>, patterns: ReadonlyArray<string> = []) => ({
  type: "object",
  required: ["error"],
  additionalProperties: false,
  properties: {
    error: {
      type: "string",
      anyOf: [...(messages.length > 0 ? [{ enum: [...new Set(messages)] }] : []), ...patterns.map((pattern) => ({ pattern }))]
    }
  }
})

const statusText: Record<number, string> = {
  400: "Bad request: not retried unchanged (§7.3)",
  401: "Unauthorized",
  404: "Not found",
  413: "Payload too large",
  500: "Server error: may be retried after a short wait, never charged (§7.3)"
}

/** Responses grouped by status, each listing its exact messages (§7). */
const errorResponses = (failures: ReadonlyArray<readonly [number, string]>, patterns: Record<number, ReadonlyArray<string>>) => {
  const statuses = [...new Set([...failures.map(([status]) => status), ...Object.keys(patterns).map(Number)])].sort()
  return Object.fromEntries(statuses.map((status) => [String(status), {
    description: statusText[status] ?? String(status),
    content: {
      "application/json": {
        schema: errorBody(failures.filter(([s]) => s === status).map(([, message]) => message), patterns[status] ?? [])
      }
    }
  }]))
}

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
            status: { type: "string", examples: ["active"] },
            statusFormatted: { type: "string", examples: ["Active"] },
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

const describeResult = {
  type: "object",
  description: "Without a schema: title, alternativeText, caption and alt_text (a copy of alternativeText). With a schema: exactly its keys.",
  additionalProperties: { type: "string" },
  examples: [{ title: "…", alternativeText: "…", caption: "…", alt_text: "…" }]
}

const tokensOperation = {
  summary: "Check a key and read the balance (no credit used)",
  responses: {
    "200": { description: "The account status", content: { "application/json": { schema: accountStatus } } },
    ...errorResponses(tokensFailures.map(tokensFailure), { 500: ["^Server error$"] })
  }
}

export const openApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "Image metadata API",
    version: "1",
    description: "Upload an image; get a title, alternative text, caption or any fields you ask for, in the language you ask for. Send requests from servers, never from browser code."
  },
  components: {
    securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "An API key from the dashboard" } }
  },
  security: [{ apiKey: [] }],
  paths: {
    "/api/describe": {
      post: {
        summary: "Describe an image (1 credit on success, none on failure)",
        description: "Checks, in order: the key, the credits, the body size (refused before reading above 11 MB), the form, the schema, the image, the generation.",
        requestBody: {
          required: true,
          content: {
            "multipart/form-data": {
              schema: {
                type: "object",
                required: ["image"],
                properties: {
                  image: { type: "string", format: "binary", description: `JPEG, PNG, WebP or GIF, at most ${limits.imageBytes / 1024 / 1024} MB; the format is read from the content` },
                  schema: { type: "string", description: `JSON object of field name -> description; at most ${limits.schemaFields} fields, names up to ${limits.fieldNameLength} characters, descriptions up to ${limits.fieldDescriptionLength}` },
                  keywords: { type: "string", description: `Comma-separated; the first ${limits.keywordsLength} characters are used` },
                  context: { type: "string", description: `Free text; the first ${limits.contextLength} characters are used` },
                  language: { type: "string", maxLength: limits.languageLength, default: "en", description: "A code (`en`, `pt-BR`) or a name (`French`)" }
                }
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
              }
            },
            content: { "application/json": { schema: describeResult } }
          },
          ...errorResponses(describeFailures, { 500: ["^Image processing failed: .+"] })
        }
      }
    },
    "/api/tokens": { get: tokensOperation },
    "/api/describe/verify": {
      get: {
        ...tokensOperation,
        summary: "Compatibility route: the same as GET /api/tokens (no credit used)",
        description: "For clients that check their key at this path (the ForVoyez WordPress plugin): the same answers as `GET /api/tokens`, status and body."
      }
    }
  }
} as const
