/**
 * Effect's logger as configured (README, Operations: Logs; config/ObservabilityConfig.ts): JSON
 * lines, pretty or logfmt; the minimum level from `LOG_LEVEL`.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { ObservabilityConfig } from "./config/ObservabilityConfig.ts"

export const LoggingLive = Layer.unwrapEffect(
  Effect.map(ObservabilityConfig, ({ logFormat: format, logLevel: level }) => {
    const logger = format === "json" ? Logger.json : format === "logfmt" ? Logger.logFmt : Logger.pretty
    return Layer.merge(logger, Logger.minimumLogLevel(level))
  })
)
