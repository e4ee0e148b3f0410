/**
 * The dashboard's settings (issue 5 §1), read through Effect `Config`; none of them is secret.
 * Tests set them the same way, with a `ConfigProvider`.
 */
import { Config, Context, Duration, Effect, Layer } from "effect"

export class DashboardConfig extends Context.Tag("DashboardConfig")<DashboardConfig, {
  /** `SIGNUP=closed` leaves only operator invitations (`account invite`) as a way in. */
  readonly signup: "open" | "closed"
  /** `SESSION_LIFETIME` (e.g. `12 hours`): a session ends this long after its log-in. */
  readonly sessionLifetime: Duration.Duration
}>() {
  static readonly config = Config.all({
    signup: Config.literal("open", "closed")("SIGNUP").pipe(Config.withDefault("open" as const)),
    sessionLifetime: Config.duration("SESSION_LIFETIME").pipe(Config.withDefault(Duration.days(7)))
  })

  /**
   * Printed once at start-up, like the rest of the configuration. A value that makes no sense
   * (e.g. `SIGNUP=maybe`) stops the start, as a defect that names it.
   */
  static readonly layer = Layer.effect(
    DashboardConfig,
    Effect.tap(DashboardConfig.config, (config) =>
      Effect.logInfo("dashboard", { signup: config.signup, sessionLifetime: Duration.format(config.sessionLifetime) }))
  ).pipe(Layer.orDie)
}
