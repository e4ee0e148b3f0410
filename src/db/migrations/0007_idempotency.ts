import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * `Idempotency-Key` entries of `POST /api/describe` (services/Idempotency.ts), shared by replicas:
 * a claim (`in_progress`, `claim_id` its holder, `expires_at` its lease) or a stored 200 (`done`,
 * `expires_at` 24 hours on). An expired row counts as absent and is swept.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql`CREATE TABLE idempotency (
      account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      key text NOT NULL,
      claim_id uuid NOT NULL,
      digest text NOT NULL,
      state text NOT NULL CHECK (state IN ('in_progress', 'done')),
      status integer,
      body text,
      headers text,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, key)
    )`,
    sql`CREATE INDEX idempotency_expires ON idempotency (expires_at)`
  ], { discard: true })
)
