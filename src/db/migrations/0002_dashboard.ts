import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The dashboard (README, Dashboard): people who log in to an account, their sessions, and failed log-ins.
 * E-mail addresses are stored normalised (trimmed, lower case), so the unique index is the rule.
 * An invited user has an invitation (hash and expiry) and no password until they accept it.
 * Only hashes of invitation tokens are kept: the database never holds a usable invitation.
 * A Try it request from the dashboard spends a credit without a key, so usage rows may have none.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql`CREATE TABLE dashboard_users (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL UNIQUE REFERENCES accounts (id),
      email text NOT NULL UNIQUE,
      password_hash text,
      invitation_hash text UNIQUE,
      invitation_expires_at timestamptz,
      created_at timestamptz NOT NULL,
      CHECK (password_hash IS NOT NULL OR invitation_hash IS NOT NULL)
    )`,
    sql`CREATE TABLE sessions (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES dashboard_users (id),
      csrf_token text NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    )`,
    sql`CREATE INDEX sessions_user ON sessions (user_id)`,
    sql`CREATE INDEX sessions_expiry ON sessions (expires_at)`,
    sql`CREATE TABLE login_failures (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      email text NOT NULL,
      address text NOT NULL,
      failed_at timestamptz NOT NULL
    )`,
    sql`CREATE INDEX login_failures_email ON login_failures (email, failed_at)`,
    sql`CREATE INDEX login_failures_address ON login_failures (address, failed_at)`,
    sql`ALTER TABLE usage ALTER COLUMN key_id DROP NOT NULL`
  ], { discard: true })
)
