import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * What a webhook claim reads (services/WebhookDelivery.ts, `claim`), whatever the backlog of one
 * account: each account's earliest pending event, one index look-up per account; and the events in
 * flight, without reading the retries due later.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql`CREATE INDEX webhook_events_account_due ON webhook_events (account_id, next_attempt_at) WHERE state = 'pending'`,
    sql`CREATE INDEX webhook_events_claimed ON webhook_events (account_id) WHERE state = 'pending' AND claim_id IS NOT NULL`
  ], { discard: true }))
