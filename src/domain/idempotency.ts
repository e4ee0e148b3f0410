/**
 * The rules of `Idempotency-Key` on `POST /api/describe` (README, "Retries without paying twice")
 * and `POST /api/batches`: what a key may be, how long a stored answer lasts, and what makes two
 * requests the same.
 */
import { createHash } from "node:crypto"
import * as Duration from "effect/Duration"
import type { BatchInput } from "./batchInput.ts"
import { contextUsed, type DescribeForm, formAsUsed, keywordsUsed, languageOrDefault } from "./describeForm.ts"
import { sortedKeysText } from "./jsonText.ts"

/** A stored 200 answers retries for this long. */
export const replayFor = Duration.hours(24)

/** 1 to 255 printable ASCII characters (the header's value has no other use). */
export const isValidKey = (key: string) => /^[\x20-\x7e]{1,255}$/.test(key)

/**
 * The SHA-256 of what the request asks: the fields as the service uses them (§8's cut keywords and
 * context, the default language) and the image's bytes (or its URL), each part length-prefixed so no two
 * requests share a text. A retry built the same way matches; another image or field does not.
 */
export const requestDigest = (read: DescribeForm) => {
  const form = formAsUsed(read)
  const hash = createHash("sha256")
  const part = (value: string | Uint8Array | undefined) => {
    const bytes = typeof value === "string" ? new TextEncoder().encode(value) : value
    hash.update(bytes === undefined ? "-" : `${bytes.length}:`)
    if (bytes !== undefined) hash.update(bytes)
  }
  part(form.schema?.text)
  part(keywordsUsed(form.keywords?.text))
  part(contextUsed(form.context?.text))
  part(languageOrDefault(form.language?.text).trim())
  part(form.image?.bytes)
  // The URL stands for the image only when no file is sent (the file wins, README "Images by URL").
  part(form.image === undefined ? form.imageUrl?.text : undefined)
  return hash.digest("hex")
}

/** A JSON value with every object's keys in one order: the order of keys means nothing in JSON. */
const sortedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortedKeys)
    : value !== null && typeof value === "object"
    ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]))
    : value

/**
 * An item's `metadata` as the digest counts it, whatever the order of its keys: parsed, as earlier
 * versions counted it (a batch retried across an upgrade, or between replicas of two versions, is
 * the same batch); as text only where parsing would merge two (an id past 2^53, `1e400`).
 */
const metadataDigested = (metadata: string): unknown => {
  const parsed = sortedKeys(JSON.parse(metadata))
  const asSent = sortedKeysText(metadata)
  return JSON.stringify(parsed) === asSent ? parsed : asSent
}

/**
 * The SHA-256 of a batch as read (domain/batchInput.ts): the same items, fields and webhook, the
 * same batch, whatever the order of keys in an item's `metadata`. A `schema`'s order of keys is
 * its fields' order (§2.1), so it counts.
 */
export const batchDigest = (input: BatchInput) =>
  createHash("sha256").update(JSON.stringify({
    ...input,
    items: input.items.map((item) => ({ ...item, metadata: item.metadata === undefined ? undefined : metadataDigested(item.metadata) }))
  })).digest("hex")

/** A 200 kept for replay: its body and the headers a client reads (`Content-Language`, `X-Describer`). */
export interface StoredAnswer {
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
}
