import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Accounts whose webhook receiver did not answer (a time-out, a refused connection), left alone
 * until `until` (services/WebhookDelivery.ts): their other events wait, rather than each hold a
 * worker for a whole time-out. `failures` in a row make the pause grow as the retries do; any
 * answer from the receiver ends it.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`CREATE TABLE webhook_pauses (
    account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    failures integer NOT NULL,
    until timestamptz NOT NULL
  )`)
