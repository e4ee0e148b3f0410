import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The last four characters of each new key, which the dashboard lists to tell keys apart (older
 * keys have none); "Forgot password" requests, counted per address and per address asked for, as sign-ups are
 * (services/attempts.ts); and a key just created, kept for the one page that shows it after the
 * redirect (services/KeyFlash.ts): sealed with a key only the session's cookie gives, deleted
 * when shown, and gone with its session.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql`ALTER TABLE api_keys ADD COLUMN last_four text`,
    sql`CREATE TABLE password_reset_requests (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      email text NOT NULL,
      address text NOT NULL,
      requested_at timestamptz NOT NULL
    )`,
    sql`CREATE INDEX password_reset_requests_address ON password_reset_requests (address, requested_at)`,
    sql`CREATE INDEX password_reset_requests_email ON password_reset_requests (email, requested_at)`,
    sql`CREATE INDEX password_reset_requests_time ON password_reset_requests (requested_at)`,
    sql`CREATE TABLE key_flashes (
      session_id uuid PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
      key_id uuid NOT NULL REFERENCES api_keys (id),
      sealed text NOT NULL,
      expires_at timestamptz NOT NULL
    )`
  ], { discard: true })
)
