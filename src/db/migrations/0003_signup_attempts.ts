import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Sign-ups per address (services/Users.ts): each one costs a password hash and may leave an
 * account, so an address gets a bounded number per window. Rows older than the window are deleted
 * as new attempts arrive (as failed log-ins are, hence their time index too); only the address
 * and the time are kept.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql`CREATE TABLE signup_attempts (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      address text NOT NULL,
      attempted_at timestamptz NOT NULL
    )`,
    sql`CREATE INDEX signup_attempts_address ON signup_attempts (address, attempted_at)`,
    // Each sign-up first deletes what has left the window.
    sql`CREATE INDEX signup_attempts_time ON signup_attempts (attempted_at)`,
    sql`CREATE INDEX login_failures_time ON login_failures (failed_at)`
  ], { discard: true })
)
