/**
 * The server, database and upload settings (README "Configuration"), read through Effect `Config`
 * with defaults that work on a fresh machine. Read once with every other section (Settings.ts).
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { hasCredentials, parseHttpUrl } from "../domain/httpUrl.ts"
import { redactUrl, secretShown } from "./redact.ts"
import { millisSetting } from "./rules.ts"

/** The shortest `API_KEY_SECRET` accepted, in bytes (README "Configuration"). */
export const minimumSecretBytes = 32

export class AppConfig extends Context.Tag("AppConfig")<AppConfig, {
  readonly port: number
  readonly host: string
  /** PostgreSQL; the embedded PGlite in `dataDir` when absent. */
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  /** Signs API keys; generated once and kept in the database when absent. */
  readonly apiKeySecret: Option.Option<Redacted.Redacted>
  /** A describe body must have arrived by then (slow or stalled clients are cut off). */
  readonly uploadTimeout: Duration.Duration
  /** A dashboard form body (at most 16 KiB) must have arrived by then. */
  readonly formTimeout: Duration.Duration
  /** Bytes of describe request bodies held in memory at once (`UPLOAD_MEMORY_MB`, services/UploadBudget.ts). */
  readonly uploadMemory: number
  /** Guards `/metrics`; without it only loopback clients may scrape. */
  readonly metricsToken: Option.Option<Redacted.Redacted>
  /** On SIGTERM, how long requests in flight may finish. */
  readonly shutdownTimeout: Duration.Duration
  /** Reverse proxies in front of the service whose `X-Forwarded-For` is believed (http/clientAddress.ts). */
  readonly trustedProxies: number
  /** Where people reach the service, for the links the CLI prints (invitations, password resets). */
  readonly publicUrl: string
  /** `PUBLIC_URL` was given: the OpenAPI document names it as its server, else a relative `/`. */
  readonly publicUrlSet: boolean
}>() {
  static readonly config = Config.all({
    port: Config.port("PORT").pipe(Config.withDefault(3000)),
    publicUrlSetting: Config.option(Config.string("PUBLIC_URL").pipe(
      // Paths are appended to it, and it is printed: a query or a fragment broke every link, a password was shown.
      Config.validate({
        message: "PUBLIC_URL must be an http(s) URL without a user name, password, query or fragment, e.g. https://images.example.com",
        validation: (text) => {
          const url = parseHttpUrl(text)
          return url !== null && !hasCredentials(url) && !/[?#]/.test(text)
        }
      })
    )),
    // Empty (`HOST=` in an env file) is unset, as for the other variables: it bound every address but printed `localhost`.
    host: Config.string("HOST").pipe(Config.map((host) => host.trim() || "0.0.0.0"), Config.withDefault("0.0.0.0")),
    databaseUrl: Config.option(Config.redacted("DATABASE_URL").pipe(
      Config.validate({
        message: "DATABASE_URL must be a postgres:// URL, e.g. postgres://user:password@db.example.com:5432/images",
        validation: (url) => URL.canParse(Redacted.value(url)) && /^postgres(ql)?:$/.test(new URL(Redacted.value(url)).protocol)
      })
    )),
    dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./data")),
    apiKeySecret: Config.option(Config.redacted("API_KEY_SECRET").pipe(
      // HS256 is only as strong as its key: at least its 256-bit output (RFC 7518 §3.2).
      Config.validate({
        message: `API_KEY_SECRET must be at least ${minimumSecretBytes} bytes (e.g. \`openssl rand -base64 48\`)`,
        validation: (secret) => new TextEncoder().encode(Redacted.value(secret)).length >= minimumSecretBytes
      })
    )),
    uploadTimeout: millisSetting("UPLOAD_TIMEOUT_MS", 60_000),
    formTimeout: millisSetting("FORM_TIMEOUT_MS", 10_000),
    uploadMemory: Config.integer("UPLOAD_MEMORY_MB").pipe(
      Config.withDefault(64),
      // One body at the largest size of §8 must fit, or it would wait forever.
      Config.validate({ message: "UPLOAD_MEMORY_MB must be at least 11", validation: (mb) => mb >= 11 }),
      Config.map((mb) => mb * 1024 * 1024)
    ),
    // Empty is unset, as a compose file's `${METRICS_TOKEN:-}` passes it: it would lock everyone
    // out of /metrics, loopback included.
    metricsToken: Config.option(Config.redacted("METRICS_TOKEN")).pipe(Config.map(Option.filter((token) => Redacted.value(token) !== ""))),
    shutdownTimeout: Config.integer("SHUTDOWN_TIMEOUT_MS").pipe(
      Config.withDefault(25_000),
      Config.validate({ message: "SHUTDOWN_TIMEOUT_MS must be 0 or more", validation: (ms) => ms >= 0 }),
      Config.map(Duration.millis)
    ),
    trustedProxies: Config.integer("TRUSTED_PROXIES").pipe(
      Config.withDefault(0),
      Config.validate({ message: "TRUSTED_PROXIES must be 0 or more", validation: (hops) => hops >= 0 })
    )
  }).pipe(
    Config.map(({ publicUrlSetting, ...config }) => ({
      ...config,
      publicUrlSet: Option.isSome(publicUrlSetting),
      // A trailing slash would double the one of each printed path.
      publicUrl: Option.getOrElse(publicUrlSetting, () => `http://localhost:${config.port}`).replace(/\/+$/, "")
    }))
  )
}

type AppSettings = Context.Tag.Service<AppConfig>

/** The server's part of the start-up summary, by variable: no secret, no password in a URL. */
export const serverSummary = (config: AppSettings) => ({
  PORT: config.port,
  HOST: config.host,
  // Unset, every link the service gives (reset e-mails, the key page's snippets) points at this machine.
  PUBLIC_URL: config.publicUrlSet ? config.publicUrl : `unset: ${config.publicUrl} (links in e-mails and on the key page point there)`,
  TRUSTED_PROXIES: config.trustedProxies,
  FORM_TIMEOUT_MS: Duration.toMillis(config.formTimeout),
  SHUTDOWN_TIMEOUT_MS: Duration.toMillis(config.shutdownTimeout),
  METRICS_TOKEN: secretShown(config.metricsToken, "unset: /metrics answers loopback only")
})

export const databaseSummary = (config: AppSettings) => ({
  DATABASE_URL: Option.match(config.databaseUrl, {
    onNone: () => `unset: pglite:${config.dataDir}`,
    onSome: (url) => redactUrl(Redacted.value(url))
  }),
  DATA_DIR: config.dataDir,
  API_KEY_SECRET: secretShown(config.apiKeySecret, "generated, kept in the database")
})

export const uploadsSummary = (config: AppSettings) => ({
  UPLOAD_TIMEOUT_MS: Duration.toMillis(config.uploadTimeout),
  UPLOAD_MEMORY_MB: config.uploadMemory / 1024 / 1024
})
