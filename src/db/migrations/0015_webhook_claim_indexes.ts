import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The events in flight, which a webhook claim counts by account (services/WebhookDelivery.ts,
 * `claim`): read from the due index, they were found among every retry due later, and a receiver
 * that fails fast leaves many (50,000: 15 to 23 ms a claim on PGlite, against about 1 ms).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`CREATE INDEX webhook_events_claimed ON webhook_events (account_id) WHERE state = 'pending' AND claim_id IS NOT NULL`)
