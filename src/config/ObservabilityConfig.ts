/**
 * Logs and traces (README, Operations): `LOG_FORMAT` (JSON lines by default, what log collectors
 * read; pretty on a terminal), `LOG_LEVEL`, and the optional OTLP trace export. Read with every
 * other section (Settings.ts); logging.ts and tracing.ts use them.
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import { redactUrl } from "./redact.ts"

/** JSON lines, what log collectors read; pretty on a terminal. */
export const defaultLogFormat = process.stdout.isTTY ? "pretty" as const : "json" as const

export class ObservabilityConfig extends Context.Tag("ObservabilityConfig")<ObservabilityConfig, {
  readonly logFormat: "json" | "logfmt" | "pretty"
  readonly logLevel: LogLevel.LogLevel
  /** Where spans go (OTLP/HTTP); without it the tracer is off. */
  readonly otlpEndpoint: Option.Option<string>
  readonly serviceName: string
}>() {
  static readonly config = Config.all({
    logFormat: Config.literal("json", "logfmt", "pretty")("LOG_FORMAT").pipe(
      Config.withDefault(defaultLogFormat)
    ),
    logLevel: Config.logLevel("LOG_LEVEL").pipe(Config.withDefault(LogLevel.Info)),
    otlpEndpoint: Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")),
    serviceName: Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("image-metadata-service"))
  })
}

/** The logs' and traces' part of the start-up summary, by variable. */
export const observabilitySummary = (config: Context.Tag.Service<ObservabilityConfig>) => ({
  LOG_FORMAT: config.logFormat,
  LOG_LEVEL: config.logLevel.label,
  OTEL_EXPORTER_OTLP_ENDPOINT: Option.match(config.otlpEndpoint, { onNone: () => "unset: no traces exported", onSome: redactUrl }),
  OTEL_SERVICE_NAME: config.serviceName
})
