import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * When each account last had a batch item started, by the database's clock: the claim serves the
 * account waiting longest (services/batchItems.ts). Kept here rather than derived from the items,
 * which cost a look per account with queued items at every claim.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`CREATE TABLE batch_turns (
    account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    started_at timestamptz NOT NULL
  )`)
