import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The usage row of the request whose 200 an `Idempotency-Key` entry stores (services/Idempotency.ts):
 * the answer is replayed only once that row is charged. Entries stored before have none, and replay
 * as they did.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE idempotency ADD COLUMN usage_id uuid`)
