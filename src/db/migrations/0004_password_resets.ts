import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Password-reset links an operator makes with `user reset-link` (README, Operator CLI): like
 * invitations, only the token's SHA-256 hash is kept, with its expiry, and `used_at` once the
 * dashboard has taken it, so a link works once.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql`CREATE TABLE password_resets (
      token_hash text PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES dashboard_users (id),
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    )`,
    sql`CREATE INDEX password_resets_user ON password_resets (user_id)`
  ], { discard: true })
)
