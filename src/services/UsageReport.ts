/** Read-only queries behind the dashboard's Usage page (issue 5 §3); they change nothing. */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { LedgerEntry } from "../domain/models.ts"
import { DayCount, KeyCount, RecentRequest } from "../domain/usageReport.ts"

const Period = Schema.Struct({ accountId: Schema.String, since: Schema.DateFromSelf })
const Latest = Schema.Struct({ accountId: Schema.String, limit: Schema.Int })

export class UsageReport extends Effect.Service<UsageReport>()("UsageReport", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const perDay = SqlSchema.findAll({
      Request: Period,
      Result: DayCount,
      execute: ({ accountId, since }) => sql`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
          count(*)::int AS requests, (count(*) FILTER (WHERE status = 200))::int AS succeeded
        FROM usage WHERE account_id = ${accountId} AND created_at >= ${since} GROUP BY 1`
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

    const latest = SqlSchema.findAll({
      Request: Latest,
      Result: RecentRequest,
      execute: ({ accountId, limit }) => sql`SELECT u.created_at, u.key_id, k.name AS key_name, u.state, u.status, u.error_kind
        FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id
        WHERE u.account_id = ${accountId} ORDER BY u.seq DESC LIMIT ${limit}`
    })

    const ledger = SqlSchema.findAll({
      Request: Latest,
      Result: LedgerEntry,
      execute: ({ accountId, limit }) => sql`SELECT id, amount, reason, usage_id, created_at FROM credit_ledger
        WHERE account_id = ${accountId} ORDER BY seq DESC LIMIT ${limit}`
    })

    return {
      perDay: (accountId: string, since: Date) => perDay({ accountId, since }).pipe(Effect.orDie, Effect.withSpan("UsageReport.perDay")),
      perKey: (accountId: string, since: Date) => perKey({ accountId, since }).pipe(Effect.orDie, Effect.withSpan("UsageReport.perKey")),
      latest: (accountId: string, limit: number) => latest({ accountId, limit }).pipe(Effect.orDie, Effect.withSpan("UsageReport.latest")),
      ledger: (accountId: string, limit: number) => ledger({ accountId, limit }).pipe(Effect.orDie, Effect.withSpan("UsageReport.ledger"))
    } as const
  })
}) {}
