/**
 * Effect's logger as configured (README, Operations: Logs; config/ObservabilityConfig.ts): JSON
 * lines, pretty or logfmt; the minimum level from `LOG_LEVEL`.
 *
 * Read on its own, not from the settings' tag, so that a start-up refused for another setting is
 * still logged in the configured format. An invalid `LOG_FORMAT` or `LOG_LEVEL` leaves the
 * defaults, and the settings' read then refuses the start, naming it.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { defaultLogFormat, ObservabilityConfig } from "./config/ObservabilityConfig.ts"

export const LoggingLive = Layer.unwrapEffect(
  ObservabilityConfig.config.pipe(
    Effect.orElseSucceed(() => ({ logFormat: defaultLogFormat, logLevel: LogLevel.Info })),
    Effect.map(({ logFormat: format, logLevel: level }) => {
      const logger = format === "json" ? Logger.json : format === "logfmt" ? Logger.logFmt : Logger.pretty
      return Layer.merge(logger, Logger.minimumLogLevel(level))
    })
  )
)
