/**
 * Batches of describes (README, "Batches"): their creation, what an account reads of them, and
 * their cancelation. Items live in the database, so any replica's workers run them
 * (batchItems.ts, BatchWorkers.ts) and a restart loses none.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type BatchRow, batchSummary, countsOf, type ItemRow, itemRowColumns } from "../domain/batch.ts"
import { type BatchInput, batchLimits } from "../domain/batchInput.ts"
import { BatchNotFound, BatchQueueFull, IdempotencyKeyReused } from "../domain/errors.ts"
import { batchDigest } from "../domain/idempotency.ts"
import type { AccountId, KeyId } from "../domain/ids.ts"
import { makeBatchStatements } from "./batchStatements.ts"

/** A page of the list: at most `limit` batches older than `before` (a batch id), newest first. */
export interface BatchPage {
  readonly limit: number
  readonly before: Option.Option<string>
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export class Batches extends Effect.Service<Batches>()("Batches", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const statements = yield* makeBatchStatements
    const { now, batchRow, summaryOf } = statements

    /** The caller's batch `id`, or `BatchNotFound` (an id that is not a UUID names no batch). */
    const ownBatch = (accountId: AccountId, id: string, lock = false) =>
      uuid.test(id)
        ? Effect.flatMap(Effect.orDie(batchRow(id, accountId, lock)), (row) => (row === undefined ? new BatchNotFound() : Effect.succeed(row)))
        : new BatchNotFound()

    /**
     * One transaction: the batch and all its items, queued; `BatchQueueFull` when the account would
     * have more than `batchLimits.queuedItems` queued. The account's creates take turns (a lock
     * held to the commit), so two at once cannot both pass the count, nor both take one
     * `Idempotency-Key`: a key already taken by the same request answers that batch (`replayed`),
     * by another request `IdempotencyKeyReused`.
     */
    const create = (accountId: AccountId, keyId: KeyId | null, input: BatchInput, idempotencyKey: Option.Option<string>) =>
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${`batch-create:${accountId}`}, 0))`
        const digest = batchDigest(input)
        const key = Option.getOrNull(idempotencyKey)
        if (key !== null) {
          const [taken] = yield* sql<{ readonly id: string; readonly requestDigest: string }>`SELECT id, request_digest
            FROM batches WHERE account_id = ${accountId} AND idempotency_key = ${key}`
          if (taken !== undefined && taken.requestDigest !== digest) return yield* new IdempotencyKeyReused()
          if (taken !== undefined) {
            return { summary: yield* summaryOf((yield* batchRow(taken.id, accountId)) as BatchRow), replayed: true }
          }
        }
        const [queued] = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM batch_items
          WHERE account_id = ${accountId} AND state = 'queued'`
        if ((queued?.n ?? 0) + input.items.length > batchLimits.queuedItems) return yield* new BatchQueueFull()
        const id = crypto.randomUUID()
        const createdAt = yield* now
        yield* sql`INSERT INTO batches ${sql.insert({
          id, accountId, keyId, status: "queued", webhookUrl: input.webhookUrl ?? null, itemEvents: input.itemEvents,
          total: input.items.length, createdAt, idempotencyKey: key, requestDigest: key === null ? null : digest
        })}`
        yield* sql`INSERT INTO batch_items ${sql.insert(input.items.map((item, position) => ({
          id: crypto.randomUUID(), batchId: id, accountId, position, state: "queued",
          fields: JSON.stringify(item.fields), metadata: item.metadata ?? null
        })))}`
        const batch = yield* batchRow(id, accountId)
        return { summary: yield* summaryOf(batch as BatchRow), replayed: false }
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Batches.create"))

    /** The batch with its items in their order (`itemJson` shows one as the API does). */
    const get = (accountId: AccountId, id: string) =>
      Effect.gen(function* () {
        const batch = yield* ownBatch(accountId, id)
        const items = yield* sql<ItemRow>`SELECT ${sql.unsafe(itemRowColumns)} FROM batch_items
          WHERE batch_id = ${batch.id} ORDER BY position`.pipe(Effect.orDie)
        return { summary: yield* Effect.orDie(summaryOf(batch)), items }
      }).pipe(Effect.withSpan("Batches.get"))

    /**
     * The account's batches, newest first, a page at a time; `next` is the `before` of the next
     * page. A `before` that is none of the account's batches is `BatchNotFound`: an empty page
     * would read as the last one, and a client with a mangled cursor would stop without a word.
     */
    const list = (accountId: AccountId, page: BatchPage) =>
      Effect.gen(function* () {
        const before = yield* Effect.transposeOption(Option.map(page.before, (id) => ownBatch(accountId, id)))
        const rows = yield* sql<BatchRow>`SELECT ${statements.batchColumns} FROM batches WHERE account_id = ${accountId}
          ${Option.match(before, {
          onNone: () => sql``,
          onSome: (batch) => sql`AND seq < (SELECT seq FROM batches WHERE id = ${batch.id} AND account_id = ${accountId})`
        })}
          ORDER BY seq DESC LIMIT ${page.limit + 1}`.pipe(Effect.orDie)
        const shown = rows.slice(0, page.limit)
        const counts = yield* Effect.orDie(statements.counts(shown))
        const batches = shown.map((batch) => batchSummary(batch, counts.get(batch.id) ?? countsOf(batch.total, [])))
        const last = shown.at(-1)
        return { batches, next: rows.length > page.limit && last !== undefined ? Option.some(last.id) : Option.none<string>() }
      }).pipe(Effect.withSpan("Batches.list"))

    /**
     * Cancels the items not started, in one transaction with the batch row locked (as workers end
     * items, batchStatements.ts): those running finish, and the batch ends when they have. The
     * batch is `canceled` even when every item was running: one of them given back to run again
     * (its worker stopped) is then canceled, not run (batchItems.ts).
     */
    const cancel = (accountId: AccountId, id: string) =>
      Effect.gen(function* () {
        const batch = yield* ownBatch(accountId, id, true)
        const canceled = yield* sql`UPDATE batch_items SET state = 'canceled', finished_at = ${yield* now}
          WHERE batch_id = ${batch.id} AND state = 'queued' RETURNING id`.pipe(Effect.orDie)
        if (batch.completedAt === null) {
          yield* sql`UPDATE batches SET status = 'canceled' WHERE id = ${batch.id}`.pipe(Effect.orDie)
          if (canceled.length > 0) yield* Effect.orDie(statements.endIfDone(batch.id))
        }
        return yield* Effect.orDie(Effect.flatMap(batchRow(batch.id, accountId), (row) => summaryOf(row as BatchRow)))
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Batches.cancel"))

    return { create, get, list, cancel } as const
  })
}) {}
