/** Read-only queries behind the dashboard's Usage page and its CSV export (README, Dashboard); they change nothing. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { LedgerEntry } from "../domain/models.ts"
import { DayCount, KeyCount, RecentRequest } from "../domain/usageReport.ts"
import type { KeyScope } from "../domain/usageReport.ts"
import { AccountId, KeyId } from "../domain/ids.ts"

const Period = Schema.Struct({ accountId: AccountId, since: Schema.DateFromSelf })
/** A period and a key scope; `all` false with `keyId` null is the dashboard's Try it. */
const Scoped = Schema.Struct({ ...Period.fields, all: Schema.Boolean, keyId: Schema.NullOr(KeyId), limit: Schema.Int })
const Latest = Schema.Struct({ accountId: AccountId, limit: Schema.Int })

/** At most this many requests in one export (90 days of a busy account stays a few MB). */
export const exportLimit = 100_000

export class UsageReport extends Effect.Service<UsageReport>()("UsageReport", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const inScope = ({ all, keyId }: { readonly all: boolean; readonly keyId: string | null }) =>
      sql`(${all}::boolean OR u.key_id IS NOT DISTINCT FROM ${keyId}::uuid)`

    const perDay = SqlSchema.findAll({
      Request: Scoped,
      Result: DayCount,
      execute: (request) => sql`SELECT to_char(u.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
          count(*)::int AS requests, (count(*) FILTER (WHERE u.status = 200))::int AS succeeded
        FROM usage u WHERE u.account_id = ${request.accountId} AND u.created_at >= ${request.since} AND ${inScope(request)} GROUP BY 1`
    })

    const perKey = SqlSchema.findAll({
      Request: Period,
      Result: KeyCount,
      execute: ({ accountId, since }) => sql`SELECT u.key_id, k.name AS key_name, (k.deleted_at IS NOT NULL) AS deleted,
          count(*)::int AS requests, (count(*) FILTER (WHERE u.status = 200))::int AS succeeded
        FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id
        WHERE u.account_id = ${accountId} AND u.created_at >= ${since}
        GROUP BY u.key_id, k.name, k.deleted_at ORDER BY requests DESC, key_name`
    })

    /** The period's requests in scope, newest first. */
    const requests = SqlSchema.findAll({
      Request: Scoped,
      Result: RecentRequest,
      execute: (request) => sql`SELECT u.created_at, u.key_id, k.name AS key_name, u.state, u.status, u.error_kind, u.request_id
        FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id
        WHERE u.account_id = ${request.accountId} AND u.created_at >= ${request.since} AND ${inScope(request)}
        ORDER BY u.seq DESC LIMIT ${request.limit}`
    })

    const ledger = SqlSchema.findAll({
      Request: Latest,
      Result: LedgerEntry,
      execute: ({ accountId, limit }) => sql`SELECT id, amount, reason, usage_id, created_at FROM credit_ledger
        WHERE account_id = ${accountId} ORDER BY seq DESC LIMIT ${limit}`
    })

    const scoped = (accountId: AccountId, since: Date, scope: KeyScope, limit = 0) =>
      ({ accountId, since, all: scope.all, keyId: scope.all ? null : scope.keyId, limit })

    return {
      perDay: (accountId: AccountId, since: Date, scope: KeyScope) =>
        perDay(scoped(accountId, since, scope)).pipe(Effect.orDie, Effect.withSpan("UsageReport.perDay")),
      perKey: (accountId: AccountId, since: Date) => perKey({ accountId, since }).pipe(Effect.orDie, Effect.withSpan("UsageReport.perKey")),
      requests: (accountId: AccountId, since: Date, scope: KeyScope, limit: number) =>
        requests(scoped(accountId, since, scope, limit)).pipe(Effect.orDie, Effect.withSpan("UsageReport.requests")),
      ledger: (accountId: AccountId, limit: number) => ledger({ accountId, limit }).pipe(Effect.orDie, Effect.withSpan("UsageReport.ledger"))
    } as const
  })
}) {}
