import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The request id (`X-Request-Id`, README "Operations") of each usage row, so the Usage page and its
 * export name the request that a customer's logs and ours both know. Older rows have none.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE usage ADD COLUMN request_id text`)
