import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Sign-ups per address (services/Users.ts): each one costs a password hash and may leave an
 * account, so an address gets a bounded number per window. Rows older than the window are deleted
 * as new attempts arrive; only the address and the time are kept.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql`CREATE TABLE signup_attempts (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      address text NOT NULL,
      attempted_at timestamptz NOT NULL
    )`,
    sql`CREATE INDEX signup_attempts_address ON signup_attempts (address, attempted_at)`
  ], { discard: true })
)
