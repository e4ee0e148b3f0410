/**
 * The dashboard's settings (README, Dashboard), read through Effect `Config` with every other
 * section (Settings.ts); none of them is secret.
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"

/** The most `SIGNUP_CREDITS` may be: a balance's bound (services/Credits.ts). */
const maxSignupCredits = 2_147_483_647

export class DashboardConfig extends Context.Tag("DashboardConfig")<DashboardConfig, {
  /** `SIGNUP=closed` leaves only operator invitations (`account invite`) as a way in. */
  readonly signup: "open" | "closed"
  /** `SESSION_LIFETIME` (e.g. `12 hours`): a session ends this long after its log-in. */
  readonly sessionLifetime: Duration.Duration
  /** `SIGNUP_CREDITS`: what a new account gets when its user signs up or accepts an invitation. */
  readonly signupCredits: number
  /** `CREDITS_HELP`: a sentence or a URL, shown where the balance is 0, saying how to get credits. */
  readonly creditsHelp: Option.Option<string>
}>() {
  static readonly config = Config.all({
    signup: Config.literal("open", "closed")("SIGNUP").pipe(Config.withDefault("open" as const)),
    sessionLifetime: Config.duration("SESSION_LIFETIME").pipe(Config.withDefault(Duration.days(7))),
    signupCredits: Config.integer("SIGNUP_CREDITS").pipe(
      Config.withDefault(0),
      Config.validate({
        message: `SIGNUP_CREDITS must be a whole number from 0 to ${maxSignupCredits}`,
        validation: (n) => n >= 0 && n <= maxSignupCredits
      })
    ),
    creditsHelp: Config.option(Config.string("CREDITS_HELP").pipe(Config.map((text) => text.trim()))).pipe(
      Config.map(Option.filter((text) => text !== ""))
    )
  })
}

/** The dashboard's part of the start-up summary, by variable. */
export const dashboardSummary = (config: Context.Tag.Service<DashboardConfig>) => ({
  SIGNUP: config.signup,
  SESSION_LIFETIME: Duration.format(config.sessionLifetime),
  SIGNUP_CREDITS: config.signupCredits,
  CREDITS_HELP: Option.getOrElse(config.creditsHelp, () => "unset: a balance of 0 says to ask the operator")
})
