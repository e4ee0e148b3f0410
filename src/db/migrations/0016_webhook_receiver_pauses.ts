import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Webhook receivers that did not answer, each an account's URL, left alone until `until`
 * (services/WebhookDelivery.ts): the account's events to that URL wait, its events to other URLs
 * go out, unless two of its URLs timed out lately (`timed_out_at`, read by each claim). 0013's
 * pauses held back all of an account's events: one batch's dead URL delayed the others' working
 * ones for hours (found by review). That table stays for the replicas of the version before this
 * one while a rolling upgrade runs; this version neither reads nor writes it.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.zipRight(sql`CREATE TABLE webhook_receiver_pauses (
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    url text NOT NULL,
    failures integer NOT NULL,
    timed_out_at timestamptz,
    until timestamptz NOT NULL,
    PRIMARY KEY (account_id, url)
  )`, sql`CREATE INDEX webhook_receiver_pauses_timed_out_at ON webhook_receiver_pauses (timed_out_at)`))
