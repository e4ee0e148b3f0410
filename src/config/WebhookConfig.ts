/**
 * Settings of webhook deliveries (README, "Webhooks"), read with every other section (Settings.ts);
 * services/WebhookDelivery.ts uses them with the image URLs' allow list (`IMAGE_URL_ALLOW`).
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import { atLeastOne, millisSetting } from "./rules.ts"

export class WebhookConfig extends Context.Tag("WebhookConfig")<WebhookConfig, {
  /** For one attempt: connection, request and reply (`WEBHOOK_TIMEOUT_MS`). */
  readonly timeout: Duration.Duration
  /** How often a worker looks for due events (`WEBHOOK_POLL_MS`). */
  readonly poll: Duration.Duration
  /** Attempts in flight at once in this process (`WEBHOOK_CONCURRENCY`). */
  readonly concurrency: number
  /**
   * Attempts in flight at once for one account, across replicas (`WEBHOOK_ACCOUNT_CONCURRENCY`):
   * an account whose receiver never answers holds at most this many workers, not all of them.
   */
  readonly perAccount: number
}>() {
  static readonly config = Config.all({
    timeout: millisSetting("WEBHOOK_TIMEOUT_MS", 10_000),
    poll: millisSetting("WEBHOOK_POLL_MS", 1_000),
    concurrency: Config.integer("WEBHOOK_CONCURRENCY").pipe(Config.withDefault(4), atLeastOne("WEBHOOK_CONCURRENCY")),
    perAccount: Config.integer("WEBHOOK_ACCOUNT_CONCURRENCY").pipe(Config.withDefault(2), atLeastOne("WEBHOOK_ACCOUNT_CONCURRENCY"))
  })
}

/** The webhooks' part of the start-up summary, by variable. */
export const webhookSummary = (config: Context.Tag.Service<WebhookConfig>) => ({
  WEBHOOK_TIMEOUT_MS: Duration.toMillis(config.timeout),
  WEBHOOK_POLL_MS: Duration.toMillis(config.poll),
  WEBHOOK_CONCURRENCY: config.concurrency,
  WEBHOOK_ACCOUNT_CONCURRENCY: config.perAccount
})
