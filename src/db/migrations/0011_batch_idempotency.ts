import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * `Idempotency-Key` on `POST /api/batches` (services/Batches.ts): the key a batch was created with
 * and the digest of its request, one batch per key and account, for as long as the batch is kept.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql`ALTER TABLE batches ADD COLUMN idempotency_key text, ADD COLUMN request_digest text`,
    sql`CREATE UNIQUE INDEX batches_idempotency_key ON batches (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL`
  ], { discard: true })
)
