/** Usage rows written straight into the database, for pages that report on past days. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export const dayMs = 86_400_000

/** A usage row as the describe route leaves it, `daysAgo` days before now. */
export const usageRow = (row: {
  readonly accountId: string
  readonly keyId: string | null
  readonly daysAgo: number
  readonly status: number
  readonly errorKind: string | null
  readonly requestId: string | null
}) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const at = new Date(Date.now() - row.daysAgo * dayMs)
    return sql`INSERT INTO usage (id, account_id, key_id, instance_id, created_at, state, status, error_kind, settled_at, request_id)
      VALUES (${crypto.randomUUID()}, ${row.accountId}, ${row.keyId}, 'test', ${at}, ${row.status === 200 ? "charged" : "released"},
        ${row.status}, ${row.errorKind}, ${at}, ${row.requestId})`
  }).pipe(Effect.orDie)

