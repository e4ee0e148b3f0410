import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Accounts, API keys, subscriptions, usage and the credit ledger (spec §2.3, §5; README, Operations: Credits and the database).
 * A balance is always explained by the ledger: `accounts.credits` is the ledger's sum, kept in the
 * same transaction as each ledger row; `reserved` counts credits held by requests in flight.
 * `seq` orders ledger and usage rows as they were written (timestamps can be equal).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql`CREATE TABLE settings (
      key text PRIMARY KEY,
      value text NOT NULL
    )`,
    sql`CREATE TABLE accounts (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      email text,
      registered_at timestamptz NOT NULL,
      credits integer NOT NULL DEFAULT 0 CHECK (credits >= 0),
      reserved integer NOT NULL DEFAULT 0 CHECK (reserved >= 0 AND reserved <= credits),
      deleted_at timestamptz
    )`,
    sql`CREATE TABLE api_keys (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL REFERENCES accounts (id),
      name text,
      created_at timestamptz NOT NULL,
      expired_at timestamptz NOT NULL,
      deleted_at timestamptz,
      last_used_at timestamptz
    )`,
    sql`CREATE INDEX api_keys_account ON api_keys (account_id)`,
    sql`CREATE TABLE subscriptions (
      account_id uuid PRIMARY KEY REFERENCES accounts (id),
      plan_name text NOT NULL,
      plan_description text NOT NULL,
      status text NOT NULL,
      renews_at timestamptz,
      ends_at timestamptz,
      updated_at timestamptz NOT NULL
    )`,
    sql`CREATE TABLE usage (
      id uuid PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      account_id uuid NOT NULL REFERENCES accounts (id),
      key_id uuid NOT NULL REFERENCES api_keys (id),
      instance_id text NOT NULL,
      created_at timestamptz NOT NULL,
      state text NOT NULL CHECK (state IN ('reserved', 'charged', 'released', 'refused')),
      settled_at timestamptz,
      status integer,
      error_kind text
    )`,
    sql`CREATE INDEX usage_account_time ON usage (account_id, created_at)`,
    sql`CREATE INDEX usage_reserved ON usage (instance_id) WHERE state = 'reserved'`,
    sql`CREATE TABLE credit_ledger (
      id uuid PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      account_id uuid NOT NULL REFERENCES accounts (id),
      amount integer NOT NULL CHECK (amount <> 0),
      reason text NOT NULL,
      usage_id uuid UNIQUE REFERENCES usage (id),
      created_at timestamptz NOT NULL
    )`,
    sql`CREATE INDEX credit_ledger_account ON credit_ledger (account_id, created_at)`
  ], { discard: true })
)
