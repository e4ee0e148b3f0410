/**
 * What an account has of webhooks (README, "Webhooks"): its signing secret, made on first need (a
 * delivery, or the dashboard's Webhooks page) and replaced on demand, and its recent delivery
 * attempts. The secret is a credential: it is shown to its account only, and never logged.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { AccountId } from "../domain/ids.ts"
import { formatSecret, secretBytes } from "../domain/webhooks.ts"

/** One delivery attempt, as the dashboard lists it. */
export interface DeliveryAttempt {
  readonly eventId: string
  readonly type: string
  readonly url: string
  readonly attempt: number
  readonly attemptedAt: Date
  /** The receiver's status code; none when no answer came (see `error`). */
  readonly status: number | null
  readonly error: string | null
  readonly durationMs: number
}

/** How many attempts the dashboard shows. */
export const recentAttemptCount = 20

export class AccountWebhooks extends Effect.Service<AccountWebhooks>()("AccountWebhooks", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const newSecret = Effect.sync(() => formatSecret(crypto.getRandomValues(new Uint8Array(secretBytes.created))))

    /** The account's secret, made now if it has none (two callers at once get the same one). */
    const secretOf = (accountId: AccountId) =>
      Effect.gen(function* () {
        yield* sql`INSERT INTO webhook_secrets ${sql.insert({ accountId, secret: yield* newSecret, createdAt: yield* now })}
          ON CONFLICT (account_id) DO NOTHING`
        const [row] = yield* sql<{ secret: string }>`SELECT secret FROM webhook_secrets WHERE account_id = ${accountId}`
        return row?.secret ?? ""
      }).pipe(Effect.orDie, Effect.withSpan("AccountWebhooks.secretOf"))

    /** A new secret in place of the old one: deliveries from now on are signed with it alone. */
    const rotate = (accountId: AccountId) =>
      Effect.gen(function* () {
        const secret = yield* newSecret
        yield* sql`INSERT INTO webhook_secrets ${sql.insert({ accountId, secret, createdAt: yield* now })}
          ON CONFLICT (account_id) DO UPDATE SET secret = EXCLUDED.secret, created_at = EXCLUDED.created_at`
        return secret
      }).pipe(Effect.orDie, Effect.withSpan("AccountWebhooks.rotate"))

    /** The account's latest attempts, newest first. */
    const recentAttempts = (accountId: AccountId) =>
      sql<DeliveryAttempt>`SELECT a.event_id, e.type, e.url, a.attempt, a.attempted_at, a.status, a.error, a.duration_ms
        FROM webhook_attempts a JOIN webhook_events e ON e.id = a.event_id
        WHERE e.account_id = ${accountId}
        ORDER BY a.attempted_at DESC, a.attempt DESC LIMIT ${recentAttemptCount}`.pipe(
        Effect.orDie,
        Effect.withSpan("AccountWebhooks.recentAttempts")
      )

    return { secretOf, rotate, recentAttempts } as const
  })
}) {}
