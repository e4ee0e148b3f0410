import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Batches of describes (README, "Batches"; services/Batches.ts, batchItems.ts). A batch's `status`
 * is `queued` (shown as `running` once an item has started, domain/batch.ts); `canceled` once
 * DELETE canceled an item of it; `completed_at` is set, once, when no item is left queued or running
 * (the `batch.completed` event is queued in that transaction). Each item is one describe: `queued`,
 * `running` (claimed by the service process `claimed_by`, its attempt `attempt_id`, which is the
 * `request_id` of the attempt's usage row), then `succeeded`, `failed` or `canceled`.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql`CREATE TABLE batches (
      id uuid PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      key_id uuid,
      status text NOT NULL CHECK (status IN ('queued', 'completed', 'canceled')),
      webhook_url text,
      item_events boolean NOT NULL DEFAULT false,
      total integer NOT NULL,
      created_at timestamptz NOT NULL,
      completed_at timestamptz
    )`,
    sql`CREATE INDEX batches_account ON batches (account_id, seq)`,
    sql`CREATE TABLE batch_items (
      id uuid PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      batch_id uuid NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
      account_id uuid NOT NULL,
      position integer NOT NULL,
      state text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
      fields text NOT NULL,
      metadata text,
      claimed_by text,
      attempt_id text,
      attempts integer NOT NULL DEFAULT 0,
      status integer,
      error text,
      result text,
      content_language text,
      describer text,
      started_at timestamptz,
      finished_at timestamptz,
      UNIQUE (batch_id, position)
    )`,
    sql`CREATE INDEX batch_items_queued ON batch_items (account_id, seq) WHERE state = 'queued'`,
    sql`CREATE INDEX batch_items_running ON batch_items (account_id) WHERE state = 'running'`,
    // An item's attempt is told from its usage row (batchItems.ts), looked up by its request id.
    sql`CREATE INDEX usage_request_id ON usage (request_id)`
  ], { discard: true })
)
