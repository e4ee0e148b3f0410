/**
 * `Idempotency-Key` entries in the database, so every replica sees them (README, "Retries without
 * paying twice"): the stored 200 of a key, the claim of a request running under it, and the sweep
 * of expired entries.
 *
 * A claim is a lease (`claimLease`): a process that dies mid-request leaves its claim, which blocks
 * the key with 409s until the lease ends, then counts as absent. A lease rather than the liveness
 * of its process (Instance.ts): a claim outlives its request only when that process died, and
 * 10 minutes is far past a request's own deadlines by default (the upload's wait and read, 2 x
 * 60 s; the credit's wait, 10 s; the model's, 60 s). A `MODEL_TIMEOUT_MS` or `UPLOAD_TIMEOUT_MS`
 * set near it would let a retry run while the first still does (README, "Retries without paying twice").
 *
 * A 200 is stored before its credit is captured (a capture without a stored answer would charge a
 * retry twice), with the usage row of that credit. It is replayed only once that row is charged.
 * Should the capture never come (the process killed in between, its hold released by another
 * replica's sweep), the entry counts as absent: the client never had that 200, nor paid for it.
 * A capture its process could not confirm (the database out of reach as it committed) is undone
 * once the database is back; the first replay marks the charge as standing instead, in one
 * statement that waits for, or wins over, the undoing: a 200 replayed is a 200 paid for.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import { IdempotencyKeyInProgress, IdempotencyKeyReused } from "../domain/errors.ts"
import { replayFor, type StoredAnswer } from "../domain/idempotency.ts"
import type { AccountId } from "../domain/ids.ts"
import { currentUsageId } from "./creditReservation.ts"

/** How long a claim holds its key if its request never ends it. */
export const claimLease = Duration.minutes(10)

interface Row {
  readonly digest: string
  readonly state: "in_progress" | "done"
  readonly body: string | null
  readonly headers: string | null
}

export class Idempotency extends Effect.Service<Idempotency>()("Idempotency", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const later = (from: Date, by: Duration.Duration) => new Date(from.getTime() + Duration.toMillis(by))

    /** The stored 200 of `key` and the digest of its request, unless expired. */
    const stored = (accountId: AccountId, key: string) =>
      Effect.gen(function* () {
        const [row] = yield* sql<Row>`SELECT digest, state, body, headers FROM idempotency
          WHERE account_id = ${accountId} AND key = ${key} AND state = 'done' AND expires_at > ${yield* now}
            AND (usage_id IS NULL OR EXISTS (SELECT 1 FROM usage WHERE usage.id = idempotency.usage_id AND state = 'charged'))`
        return row === undefined || row.body === null
          ? Option.none()
          : Option.some({ digest: row.digest, answer: { body: row.body, headers: JSON.parse(row.headers ?? "{}") } as StoredAnswer })
      }).pipe(Effect.orDie, Effect.withSpan("Idempotency.stored"))

    /**
     * Makes the charge of `key`'s stored 200 stand, for a replay (migration 0014): true when it
     * does, false when it was undone meanwhile (the entry then counts as absent, and the request
     * runs as a first one). Entries stored without a usage row (before migration 0010) replay.
     */
    const replay = (accountId: AccountId, key: string) =>
      Effect.gen(function* () {
        const at = yield* now
        const [row] = yield* sql<{ replayable: boolean }>`WITH entry AS (
            SELECT usage_id FROM idempotency
            WHERE account_id = ${accountId} AND key = ${key} AND state = 'done' AND expires_at > ${at}
          ), kept AS (
            UPDATE usage SET replayed_at = COALESCE(replayed_at, ${at}) FROM entry
            WHERE usage.id = entry.usage_id AND usage.state = 'charged' RETURNING usage.id
          )
          SELECT EXISTS (SELECT 1 FROM entry WHERE usage_id IS NULL) OR EXISTS (SELECT 1 FROM kept) AS replayable`
        return row?.replayable === true
      }).pipe(Effect.orDie, Effect.withSpan("Idempotency.replay"))

    /**
     * Claims `key` for a request with `digest`: one statement, so of two replicas racing one wins.
     * An expired entry is taken over, and so is a stored 200 whose credit was released (never
     * captured, so never answered). Otherwise a stored answer for another request is a 422, and
     * anything else a 409 (a first request still running, or one that has just finished).
     */
    const claim = (accountId: AccountId, key: string, digest: string) =>
      Effect.gen(function* () {
        const claimId = crypto.randomUUID()
        const at = yield* now
        const won = yield* sql`INSERT INTO idempotency ${sql.insert({
          accountId, key, claimId, digest, state: "in_progress", createdAt: at, expiresAt: later(at, claimLease)
        })} ON CONFLICT (account_id, key) DO UPDATE SET claim_id = EXCLUDED.claim_id, digest = EXCLUDED.digest,
          state = 'in_progress', status = NULL, body = NULL, headers = NULL, usage_id = NULL,
          created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
        WHERE idempotency.expires_at <= EXCLUDED.created_at
          OR (idempotency.state = 'done' AND idempotency.usage_id IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM usage WHERE id = idempotency.usage_id AND state IN ('reserved', 'charged')))
        RETURNING claim_id`.pipe(Effect.orDie)
        if (won.length > 0) return claimId
        const [held] = yield* sql<Row>`SELECT digest, state, body, headers FROM idempotency
          WHERE account_id = ${accountId} AND key = ${key}`.pipe(Effect.orDie)
        return yield* held?.state === "done" && held.digest !== digest ? new IdempotencyKeyReused() : new IdempotencyKeyInProgress()
      }).pipe(Effect.withSpan("Idempotency.claim"))

    /** Stores the 200 of a claim for `replayFor`, with the usage row of its credit (`withCredit`'s). */
    const complete = (claimId: string, answer: StoredAnswer) =>
      Effect.gen(function* () {
        const at = yield* now
        const usageId = yield* FiberRef.get(currentUsageId)
        yield* sql`UPDATE idempotency SET state = 'done', status = 200, body = ${answer.body},
          headers = ${JSON.stringify(answer.headers)}, usage_id = ${usageId}::uuid,
          created_at = ${at}, expires_at = ${later(at, replayFor)}
          WHERE claim_id = ${claimId}`
      }).pipe(Effect.orDie, Effect.withSpan("Idempotency.complete"))

    /**
     * Gives the key back after a failure: failures are not stored, a retry runs again. Whatever the
     * claim's state: a 200 stored before its credit could be captured (the settlement failed, or
     * another replica's sweep released the hold) was answered 500, and must not be replayed free.
     * Except a 200 already replayed: its charge stands, and further retries get it again.
     */
    const release = (claimId: string) =>
      sql`DELETE FROM idempotency WHERE claim_id = ${claimId} AND NOT EXISTS (
        SELECT 1 FROM usage WHERE usage.id = idempotency.usage_id AND usage.replayed_at IS NOT NULL)`.pipe(
        Effect.orDie,
        Effect.asVoid,
        Effect.withSpan("Idempotency.release")
      )

    /** Deletes expired entries (they already count as absent); how many. */
    const sweep = Effect.gen(function* () {
      const rows = yield* sql`DELETE FROM idempotency WHERE expires_at <= ${yield* now} RETURNING key`
      return rows.length
    }).pipe(Effect.orDie, Effect.withSpan("Idempotency.sweep"))

    return { stored, replay, claim, complete, release, sweep } as const
  })
}) {}
