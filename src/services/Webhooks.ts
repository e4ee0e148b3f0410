/**
 * Signed webhook events to customers' URLs (README, "Webhooks"): queued in the database within the
 * caller's transaction, so an event is sent if and only if what it reports was committed. The
 * delivery worker (WebhookDelivery.ts) signs and sends them.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type { AccountId } from "../domain/ids.ts"
import { eventBody } from "../domain/webhooks.ts"

/** One event, as its `type` and `data` (the Standard Webhooks payload adds the `timestamp`). */
export interface WebhookEvent {
  readonly type: string
  readonly data: unknown
}

export interface QueuedWebhook {
  readonly accountId: AccountId
  /** Checked at submit time with `checkWebhookUrl` (domain/webhooks.ts). */
  readonly url: string
  readonly event: WebhookEvent
}

export class Webhooks extends Context.Tag("Webhooks")<Webhooks, {
  /** Queues an event for delivery; runs in the caller's transaction when there is one. */
  readonly enqueue: (webhook: QueuedWebhook) => Effect.Effect<void, SqlError>
}>() {
  /** Records what was queued, for tests of the code that queues events. */
  static readonly recording = (queued: Ref.Ref<ReadonlyArray<QueuedWebhook>>) =>
    Layer.succeed(Webhooks, { enqueue: (webhook) => Ref.update(queued, (all) => [...all, webhook]) })

  /**
   * Into the outbox (`webhook_events`), due at once. The payload is fixed now, with the time of
   * the event; each attempt is signed when it is sent, with the account's secret of that time.
   */
  static readonly layer = Layer.effect(Webhooks, Effect.map(SqlClient.SqlClient, (sql) => ({
    enqueue: ({ accountId, event, url }) =>
      Effect.gen(function* () {
        const at = new Date(yield* Clock.currentTimeMillis)
        yield* sql`INSERT INTO webhook_events ${sql.insert({
          id: `msg_${crypto.randomUUID().replaceAll("-", "")}`,
          accountId,
          url,
          type: event.type,
          payload: eventBody(event.type, at, event.data),
          createdAt: at,
          state: "pending",
          nextAttemptAt: at
        })}`
      }).pipe(Effect.withSpan("Webhooks.enqueue"))
  })))
}
