import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * When each account last had a webhook delivery attempt started, by the database's clock: the
 * claim serves the account waiting longest (services/WebhookDelivery.ts), as `batch_turns` does
 * for batch items, so that one account's backlog of events to a slow receiver does not go out
 * before another account's single event.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`CREATE TABLE webhook_turns (
    account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    started_at timestamptz NOT NULL
  )`)
