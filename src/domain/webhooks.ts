/**
 * Signed webhook events (README, "Webhooks"), as the Standard Webhooks specification has them
 * (https://www.standardwebhooks.com/): the payload, the secret's form, the signature, the retry
 * schedule, and which URLs may receive them. Pure: the bytes of a new secret come from the caller.
 */
import { createHmac } from "node:crypto"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import { WebhookUrlInvalid } from "./errors.ts"
import { hasCredentials, parseHttpUrl } from "./httpUrl.ts"

/** The events this service sends; their `data` is described in the OpenAPI document's `webhooks`. */
export const webhookEventTypes = { batchCompleted: "batch.completed", batchItemCompleted: "batch.item.completed" } as const

const secretPrefix = "whsec_"

/** The specification's bounds on a secret's key, in bytes. */
export const secretBytes = { min: 24, max: 64, created: 32 } as const

/** A secret as shown to its account: `whsec_` and the base64 of its key bytes. */
export const formatSecret = (key: Uint8Array): string => `${secretPrefix}${Buffer.from(key).toString("base64")}`

/** The key bytes of a `whsec_` secret (the prefix is optional, as the reference libraries read it). */
export const secretKey = (secret: string): Uint8Array => {
  const encoded = secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret
  return new Uint8Array(Buffer.from(encoded, "base64"))
}

export interface SignedContent {
  /** The `webhook-id`: the same for every attempt at one event, so receivers can drop repeats. */
  readonly id: string
  /** The `webhook-timestamp`, in seconds since the epoch: the time of this attempt. */
  readonly timestamp: number
  /** The request body exactly as sent. */
  readonly body: string
}

/** `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, one per secret, space-separated. */
export const signature = (secrets: ReadonlyArray<string>, content: SignedContent): string =>
  secrets.map((secret) =>
    `v1,${createHmac("sha256", secretKey(secret)).update(`${content.id}.${content.timestamp}.${content.body}`).digest("base64")}`
  ).join(" ")

/** The headers of one attempt. */
export const signedHeaders = (secrets: ReadonlyArray<string>, content: SignedContent) => ({
  "webhook-id": content.id,
  "webhook-timestamp": `${content.timestamp}`,
  "webhook-signature": signature(secrets, content)
})

/**
 * An event's data already written as JSON: a batch item, whose result and metadata are spliced in
 * as stored (domain/batch.ts), since parsing them again would change them (an id past 2^53).
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** The body of an event: its type, when it happened (ISO 8601), and its data. */
export const eventBody = (type: string, at: Date, data: unknown): string =>
  data instanceof JsonText
    ? `${JSON.stringify({ type, timestamp: at.toISOString() }).slice(0, -1)},"data":${data.text}}`
    : JSON.stringify({ type, timestamp: at.toISOString(), data })

/**
 * The wait before each retry after a failed attempt (the Standard Webhooks and Svix schedule):
 * the first attempt is immediate, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, about 28
 * hours in all; an event whose last attempt fails is abandoned.
 */
export const retryDelays: ReadonlyArray<Duration.Duration> = [
  Duration.seconds(5), Duration.minutes(5), Duration.minutes(30), Duration.hours(2),
  Duration.hours(5), Duration.hours(10), Duration.hours(10)
]

/** After `attempts` failed attempts, the wait before the next one; none when it is abandoned. */
export const retryDelay = (attempts: number): Duration.Duration | undefined => retryDelays[attempts - 1]

/** After `failures` attempts in a row that the account's receiver did not answer, how long it is left alone. */
export const receiverPause = (failures: number): Duration.Duration =>
  retryDelays[Math.min(Math.max(failures, 1), retryDelays.length) - 1] ?? Duration.seconds(5)

/** The longest `webhookUrl` accepted, in characters (as browsers and most servers bound a URL). */
export const maxWebhookUrlLength = 2048

/**
 * A `webhookUrl` as given at submit time: an absolute http or https URL of at most
 * `maxWebhookUrlLength` characters, without credentials. Where it points is checked at each
 * delivery, on its resolved addresses (as for `imageUrl`, README "Images by URL").
 */
export const checkWebhookUrl = (text: string): Either.Either<string, WebhookUrlInvalid> => {
  const invalid = (reason: string) => Either.left(new WebhookUrlInvalid({ reason }))
  const trimmed = text.trim()
  if (trimmed.length > maxWebhookUrlLength) return invalid(`is longer than ${maxWebhookUrlLength} characters`)
  if (URL.parse(trimmed) === null) return invalid("is not a URL")
  const url = parseHttpUrl(trimmed)
  if (url === null) return invalid("must be an http or https URL")
  if (hasCredentials(url)) return invalid("must not contain a user name or password")
  return Either.right(url.href)
}
