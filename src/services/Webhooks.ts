/**
 * Signed webhook events to customers' URLs (README, "Batches"): queued in the database within the
 * caller's transaction, so an event is sent if and only if what it reports was committed.
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Ref } from "effect"
import type { AccountId } from "../domain/ids.ts"

/** One event, as its `type` and `data` (the Standard Webhooks payload adds the `timestamp`). */
export interface WebhookEvent {
  readonly type: string
  readonly data: unknown
}

export interface QueuedWebhook {
  readonly accountId: AccountId
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
}
