import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** When each account last had a batch item started: the claim serves the account waiting longest (services/batchItems.ts). */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`CREATE INDEX batch_items_started ON batch_items (account_id, started_at) WHERE started_at IS NOT NULL`)
