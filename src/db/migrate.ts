/**
 * The schema's migrations, in order: run at every start (`Database.ts`), and on a first start on
 * the embedded database by the process that creates it (`pgliteCreate.ts`).
 */
import * as Migrator from "@effect/sql/Migrator"
import init from "./migrations/0001_init.ts"
import dashboard from "./migrations/0002_dashboard.ts"
import signupAttempts from "./migrations/0003_signup_attempts.ts"
import passwordResets from "./migrations/0004_password_resets.ts"
import usageRequestId from "./migrations/0005_usage_request_id.ts"
import keysAndResetRequests from "./migrations/0006_keys_and_reset_requests.ts"
import idempotency from "./migrations/0007_idempotency.ts"
import batches from "./migrations/0008_batches.ts"
import webhooks from "./migrations/0009_webhooks.ts"
import idempotencyUsage from "./migrations/0010_idempotency_usage.ts"
import batchIdempotency from "./migrations/0011_batch_idempotency.ts"
import batchTurns from "./migrations/0012_batch_turns.ts"
import webhookPauses from "./migrations/0013_webhook_pauses.ts"
import usageReplayed from "./migrations/0014_usage_replayed.ts"
import webhookClaimIndexes from "./migrations/0015_webhook_claim_indexes.ts"
import webhookReceiverPauses from "./migrations/0016_webhook_receiver_pauses.ts"

const migrationFiles = {
  "0001_init": init,
  "0002_dashboard": dashboard,
  "0003_signup_attempts": signupAttempts,
  "0004_password_resets": passwordResets,
  "0005_usage_request_id": usageRequestId,
  "0006_keys_and_reset_requests": keysAndResetRequests,
  "0007_idempotency": idempotency,
  "0008_batches": batches,
  "0009_webhooks": webhooks,
  "0010_idempotency_usage": idempotencyUsage,
  "0011_batch_idempotency": batchIdempotency,
  "0012_batch_turns": batchTurns,
  "0013_webhook_pauses": webhookPauses,
  "0014_usage_replayed": usageReplayed,
  "0015_webhook_claim_indexes": webhookClaimIndexes,
  "0016_webhook_receiver_pauses": webhookReceiverPauses
}
const migrations = Migrator.fromRecord(migrationFiles)

/** How many migrations this version has; `/readyz` checks they are all applied. */
export const migrationCount = Object.keys(migrationFiles).length

export const migrate = Migrator.make({})({ loader: migrations })
