import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Signed webhook events (README, "Webhooks"): each account's secret (`whsec_...`, created on first
 * need), the outbox of events (queued in the transaction of what they report; `id` is the
 * `webhook-id`), and one row per delivery attempt. A `pending` event is due at `next_attempt_at`;
 * a worker that claims it moves that time past its delivery's deadline (a lease), so another
 * replica takes it over only if the first died.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql`CREATE TABLE webhook_secrets (
      account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
      secret text NOT NULL,
      created_at timestamptz NOT NULL
    )`,
    sql`CREATE TABLE webhook_events (
      id text PRIMARY KEY,
      account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      url text NOT NULL,
      type text NOT NULL,
      payload text NOT NULL,
      created_at timestamptz NOT NULL,
      state text NOT NULL CHECK (state IN ('pending', 'delivered', 'abandoned')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      claim_id uuid,
      ended_at timestamptz,
      end_reason text
    )`,
    sql`CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at) WHERE state = 'pending'`,
    sql`CREATE TABLE webhook_attempts (
      event_id text NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
      attempt integer NOT NULL,
      attempted_at timestamptz NOT NULL,
      status integer,
      error text,
      duration_ms integer NOT NULL,
      response_excerpt text,
      PRIMARY KEY (event_id, attempt)
    )`,
    sql`CREATE INDEX webhook_attempts_recent ON webhook_attempts (attempted_at)`
  ], { discard: true })
)
