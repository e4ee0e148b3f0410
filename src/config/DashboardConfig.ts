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

/**
 * A session's bounds: shorter, the session ended before its first page (0 or less made log-in
 * impossible); longer than browsers keep a cookie (400 days), and a huge value was an invalid date
 * and a 500 on every log-in.
 */
const sessionLifetimes = { min: Duration.minutes(1), max: Duration.days(400) }

/** A duration as `SESSION_LIFETIME` is written (`7 days`, `12 hours`), in its largest whole unit. */
export const durationSetting = (duration: Duration.Duration): string => {
  const millis = Duration.toMillis(duration)
  const units = [["days", 86_400_000], ["hours", 3_600_000], ["minutes", 60_000], ["seconds", 1000]] as const
  const [unit, size] = units.find(([, size]) => millis % size === 0) ?? ["millis", 1]
  return `${millis / size} ${unit}`
}

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
    sessionLifetime: Config.duration("SESSION_LIFETIME").pipe(
      Config.withDefault(Duration.days(7)),
      Config.validate({
        message: "SESSION_LIFETIME must be from 1 minute to 400 days, e.g. `12 hours`",
        validation: (lifetime) => Duration.between(lifetime, { minimum: sessionLifetimes.min, maximum: sessionLifetimes.max })
      })
    ),
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
  SESSION_LIFETIME: durationSetting(config.sessionLifetime),
  SIGNUP_CREDITS: config.signupCredits,
  CREDITS_HELP: Option.getOrElse(config.creditsHelp, () => "unset: a balance of 0 says to ask the operator")
})
