/**
 * The body of `POST /api/batches` (README, "Batches"): what makes the whole batch a 400, and each
 * item as the describe form it stands for. Only the shape is checked here; each item's fields are
 * checked when it runs, as §4.1 checks a request, so a bad item fails alone with the describe's
 * message.
 */
import * as Either from "effect/Either"
import { type DescribeForm, formCaps, type FormText } from "./describeForm.ts"
import { BatchInvalid } from "./errors.ts"
import { hasCredentials, parseHttpUrl } from "./httpUrl.ts"
import { canonical, eachElement, eachMember, firstValue, nestsDeeperThan, valueEnd } from "./jsonText.ts"
import { checkWebhookUrl } from "./webhooks.ts"

const KiB = 1024

export const batchLimits = {
  /** Items of one batch. */
  items: 1000,
  /** The body: 1,000 items of a URL and a small schema fit; a large schema each would not. */
  bodyBytes: 2 * KiB * KiB,
  /** An item's `metadata`, as JSON: it is echoed back, not a place to store documents. */
  metadataBytes: 1 * KiB,
  /** Items of one account queued at once, so one account cannot fill the database (ten full batches). */
  queuedItems: 10_000,
  /**
   * Arrays and objects inside one another in the body: a batch needs 4 (an item's schema object),
   * its metadata some more. A body nested a million deep took 0.8 s of the request thread to parse
   * and walk, for any key, even one without credit (found by review).
   */
  nesting: 64
} as const

/** The 400s of a body that is not a batch; a fault of an item names it (`items[3].schema`). */
export const batchInputMessages = {
  notJson: "Bad Request, the body must be JSON",
  nesting: `Bad Request, the body must be JSON nested at most ${batchLimits.nesting} levels deep`,
  items: `Bad Request, items must be an array of 1 to ${batchLimits.items} items`,
  webhookUrl: "Bad Request, webhookUrl must be an http or https URL",
  itemEvents: "Bad Request, itemEvents must be true or false",
  itemPattern: "^Bad Request, items\\[\\d+\\](\\.[A-Za-z]+)? must be .+"
} as const

/** The describe fields of an item, as the form's text fields (a `schema` object given as its JSON). */
export interface BatchItemFields {
  readonly imageUrl?: string
  readonly schema?: string
  readonly keywords?: string
  readonly context?: string
  readonly language?: string
}

export interface BatchItemInput {
  readonly fields: BatchItemFields
  /** The item's `metadata` as JSON, echoed back as given. */
  readonly metadata: string | undefined
}

export interface BatchInput {
  readonly items: ReadonlyArray<BatchItemInput>
  readonly webhookUrl: string | undefined
  /** A `batch.item.completed` event per item as well as `batch.completed`. */
  readonly itemEvents: boolean
}

const bytes = (text: string) => new TextEncoder().encode(text).length

const invalid = (message: string) => Either.left(new BatchInvalid({ message }))
const invalidItem = (message: string) => invalid(`Bad Request, ${message}`)

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const textFields = ["imageUrl", "keywords", "context", "language"] as const

/** An item's `metadata` and `schema` object as sent (jsonText.ts): what JSON.parse would change in them. */
interface ItemTexts {
  metadata?: string
  schema?: string
}

/** The `ItemTexts` of each item of `body`, by position. */
const itemTexts = (body: string): Array<ItemTexts | undefined> => {
  const texts: Array<ItemTexts | undefined> = []
  eachMember(body, firstValue(body), (key, at) => {
    if (key !== "items" || body.charCodeAt(at) !== 0x5b) return valueEnd(body, at)
    texts.length = 0 // a repeated key: the last one counts, as for JSON.parse
    return eachElement(body, at, (index, at) => {
      const item: ItemTexts = (texts[index] = {})
      return body.charCodeAt(at) !== 0x7b ? valueEnd(body, at) : eachMember(body, at, (key, at) => {
        const end = valueEnd(body, at)
        if (key === "metadata" || key === "schema") item[key] = canonical(body.slice(at, end))
        return end
      })
    })
  })
  return texts
}

const itemOf = (value: unknown, at: string, texts: ItemTexts | undefined): Either.Either<BatchItemInput, BatchInvalid> => {
  if (!isObject(value)) return invalidItem(`${at} must be an object`)
  const fields: Record<string, string> = {}
  for (const name of textFields) {
    const field = value[name]
    // `null` is no value, as for the batch's own optional fields (typed SDKs send an unset field so).
    if (field === undefined || field === null) continue
    if (typeof field !== "string") return invalidItem(`${at}.${name} must be a string`)
    fields[name] = field
  }
  // Refused here, not when the item runs: the item's fields are stored until then.
  const imageUrl = fields["imageUrl"] === undefined ? null : parseHttpUrl(fields["imageUrl"])
  if (imageUrl !== null && hasCredentials(imageUrl)) {
    return invalidItem(`${at}.imageUrl must be a URL without a user name or password`)
  }
  const schema = value["schema"]
  if (schema !== undefined && schema !== null) {
    if (typeof schema !== "string" && !isObject(schema)) return invalidItem(`${at}.schema must be a string or an object`)
    fields["schema"] = typeof schema === "string" ? schema : texts?.schema ?? JSON.stringify(schema)
  }
  // Echoed back as sent: an id past 2^53 comes back as the same id.
  const metadata = value["metadata"] === undefined ? undefined : texts?.metadata ?? JSON.stringify(value["metadata"])
  if (metadata !== undefined && bytes(metadata) > batchLimits.metadataBytes) {
    return invalidItem(`${at}.metadata must be at most ${batchLimits.metadataBytes} bytes of JSON`)
  }
  return Either.right({ fields, metadata })
}

/**
 * `webhookUrl`: a string that webhooks can be sent to (domain/webhooks.ts says which), normalised;
 * `null` is none, as for the other optional fields (SDKs send an unset field as `null`).
 */
const webhookUrlOf = (value: unknown): Either.Either<string | undefined, BatchInvalid> =>
  value === undefined || value === null
    ? Either.right(undefined)
    : typeof value !== "string"
    ? invalid(batchInputMessages.webhookUrl)
    : Either.mapLeft(checkWebhookUrl(value), (refused) => new BatchInvalid({ message: `Bad Request, ${refused.message}` }))

/** The batch in `body`, or why it is not one. */
export const parseBatchInput = (body: string): Either.Either<BatchInput, BatchInvalid> => {
  if (nestsDeeperThan(body, batchLimits.nesting)) return invalid(batchInputMessages.nesting)
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return invalid(batchInputMessages.notJson)
  }
  if (!isObject(json) || !Array.isArray(json["items"]) || json["items"].length === 0 || json["items"].length > batchLimits.items) {
    return invalid(batchInputMessages.items)
  }
  const webhookUrl = webhookUrlOf(json["webhookUrl"])
  if (Either.isLeft(webhookUrl)) return Either.left(webhookUrl.left)
  const itemEvents = json["itemEvents"] ?? false
  if (typeof itemEvents !== "boolean") return invalid(batchInputMessages.itemEvents)
  const asSent = json["items"].some((item) => isObject(item) && (item["metadata"] !== undefined || isObject(item["schema"])))
  const texts = asSent ? itemTexts(body) : []
  const items: Array<BatchItemInput> = []
  for (const [index, value] of json["items"].entries()) {
    const item = itemOf(value, `items[${index}]`, texts[index])
    if (Either.isLeft(item)) return Either.left(item.left)
    items.push(item.right)
  }
  return Either.right({ items, webhookUrl: webhookUrl.right, itemEvents })
}

/** A text field as the multipart reader would keep it: cut (`truncated`) past its cap. */
const formText = (text: string | undefined, cap: number): FormText | undefined =>
  text === undefined ? undefined : { text, truncated: bytes(text) > cap }

/** The describe form an item stands for: its `imageUrl` in place of a file (README, "Images by URL"). */
export const itemForm = (fields: BatchItemFields): DescribeForm => ({
  image: undefined,
  imageUrl: formText(fields.imageUrl, formCaps.imageUrl),
  schema: formText(fields.schema, formCaps.schema),
  keywords: formText(fields.keywords, formCaps.keywords),
  context: formText(fields.context, formCaps.context),
  language: formText(fields.language, formCaps.language)
})
