import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * When a charge's 200 was first replayed under its `Idempotency-Key` (services/Idempotency.ts,
 * `replay`): from then on the charge stands, and a settlement that could not be confirmed is not
 * undone (creditStatements.ts, `abandon`), since a client has the answer.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE usage ADD COLUMN replayed_at timestamptz`)
