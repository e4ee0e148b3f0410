/**
 * Effect's logger as configured (README, Operations: Logs): JSON lines by default (what log collectors read),
 * pretty on a terminal, logfmt on request; the minimum level from `LOG_LEVEL`.
 */
import { Config, Effect, Layer, Logger, LogLevel } from "effect"

export const LoggingLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const format = yield* Config.literal("json", "logfmt", "pretty")("LOG_FORMAT").pipe(
      Config.withDefault(process.stdout.isTTY ? "pretty" : "json")
    )
    const level = yield* Config.logLevel("LOG_LEVEL").pipe(Config.withDefault(LogLevel.Info))
    const logger = format === "json" ? Logger.json : format === "logfmt" ? Logger.logFmt : Logger.pretty
    return Layer.merge(logger, Logger.minimumLogLevel(level))
  })
)
