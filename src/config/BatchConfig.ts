/**
 * Settings of batch work (README, "Batches"), read with every other section (Settings.ts), with
 * defaults that suit one small machine; services/BatchWorkers.ts uses them.
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"

export class BatchConfig extends Context.Tag("BatchConfig")<BatchConfig, {
  /** Items one process runs at once (`BATCH_WORKERS`); 0 runs none (a replica that only answers requests). */
  readonly workers: number
  /** Items of one account running at once, across all replicas (`BATCH_ACCOUNT_CONCURRENCY`). */
  readonly perAccount: number
  /** How often an idle worker looks for work (`BATCH_POLL_MS`). */
  readonly poll: Duration.Duration
}>() {
  static readonly config = Config.all({
    workers: Config.integer("BATCH_WORKERS").pipe(Config.withDefault(4)),
    perAccount: Config.integer("BATCH_ACCOUNT_CONCURRENCY").pipe(Config.withDefault(2)),
    poll: Config.integer("BATCH_POLL_MS").pipe(Config.withDefault(500), Config.map(Duration.millis))
  }).pipe(Config.validate({
    message: "BATCH_WORKERS must be 0 or more, BATCH_ACCOUNT_CONCURRENCY 1 or more, BATCH_POLL_MS 1 or more",
    validation: (config) => config.workers >= 0 && config.perAccount >= 1 && Duration.toMillis(config.poll) >= 1
  }))
}

/** The batches' part of the start-up summary, by variable. */
export const batchSummary = (config: Context.Tag.Service<BatchConfig>) => ({
  BATCH_WORKERS: config.workers,
  BATCH_ACCOUNT_CONCURRENCY: config.perAccount,
  BATCH_POLL_MS: Duration.toMillis(config.poll)
})
