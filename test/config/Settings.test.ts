/**
 * The start-up summary (README "Configuration"): one log line naming every setting with its
 * effective value, and no secret in anything the service prints as it starts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, ConfigProvider, Effect, Exit, Option } from "effect"
import { settings, summary } from "../../src/config/Settings.ts"
import { explained } from "../../src/services/messageOf.ts"
import { freshPostgresUrl, postgresUrl } from "../support/database.ts"
import { startService, tempDataDir } from "../support/process.ts"

/** Every variable the definition reads, in the order it reads them: recorded from the provider it asks. */
const settingNames = Effect.suspend(() => {
  const names = new Set<string>()
  const inner = ConfigProvider.fromMap(new Map()).flattened
  const recording = ConfigProvider.fromFlat(ConfigProvider.makeFlat({
    load: (path, primitive, split) => {
      names.add(path.join("."))
      return inner.load(path, primitive, split)
    },
    enumerateChildren: (path) => inner.enumerateChildren(path),
    patch: inner.patch
  }))
  return Effect.withConfigProvider(settings, recording).pipe(Effect.map(() => [...names]))
})

const read = (variables: Record<string, string>) =>
  Effect.withConfigProvider(settings, ConfigProvider.fromMap(new Map(Object.entries(variables))))

/** The summary's entries, whatever their section. */
const entries = (shown: ReturnType<typeof summary>): Record<string, unknown> => Object.assign({}, ...Object.values(shown))

/** A distinctive value for every secret the service takes, and where it goes. */
const secrets = {
  apiKeySecret: "api-key-secret-5f0c1d2e3a4b5c6d7e8f9a0b",
  metricsToken: "metrics-token-7c3a9e1f",
  openAiKey: "sk-openai-key-4b8d2f6a",
  smtpPassword: "smtp-password-9e2c7a1b",
  databasePassword: "database-password-3d6f8b0c",
  baseUrlPassword: "base-url-password-1a5e9c3f",
  otlpPassword: "otlp-password-8b2d4f6e"
}

const secretVariables = {
  API_KEY_SECRET: secrets.apiKeySecret,
  METRICS_TOKEN: secrets.metricsToken,
  OPENAI_API_KEY: secrets.openAiKey,
  OPENAI_BASE_URL: `http://model:${secrets.baseUrlPassword}@127.0.0.1:9/v1`,
  SMTP_URL: `smtps://mailer:${secrets.smtpPassword}@mail.example.com:465`,
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://otel:${secrets.otlpPassword}@127.0.0.1:9`
}

describe("the start-up summary", () => {
  it.effect("names every setting the definition reads, and nothing else", () =>
    Effect.gen(function* () {
      const names = yield* settingNames
      expect(names.length).toBeGreaterThan(30)
      const shown = entries(summary(yield* read({})))
      expect(Object.keys(shown).sort()).toEqual([...names].sort())
    }))

  it.effect("shows whether each secret is set, never its value nor a password in a URL", () =>
    Effect.gen(function* () {
      const all = yield* read({ ...secretVariables, DATABASE_URL: `postgres://app:${secrets.databasePassword}@db.example.com/images` })
      const printed = JSON.stringify(summary(all))
      for (const secret of Object.values(secrets)) expect(printed).not.toContain(secret)
      expect(entries(summary(all))).toMatchObject({
        API_KEY_SECRET: "<redacted>",
        METRICS_TOKEN: "<redacted>",
        OPENAI_API_KEY: "<redacted>",
        DATABASE_URL: "postgres://app:redacted@db.example.com/images",
        SMTP_URL: "smtps://redacted:redacted@mail.example.com:465",
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1"
      })
    }))

  it.effect("tokens in a URL's user name (but a database's), fragment, or query under any name of a secret are not shown", () =>
    Effect.gen(function* () {
      const all = yield* read({
        ...secretVariables,
        OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel-user-token@otel.example.com/v1?api-key=q-secret-1&X-Honeycomb-Team=q-secret-2&region=eu#q-secret-4",
        OPENAI_BASE_URL: "https://ghp-token-5:x-oauth-basic@models.example.com/v1",
        SMTP_URL: "smtps://smtp-token-6@smtp.example.com:465/?access_token=q-secret-3",
        DATABASE_URL: "postgres://app:db-secret-7@db.example.com/images"
      })
      const printed = JSON.stringify(summary(all))
      for (const secret of ["otel-user-token", "q-secret-1", "q-secret-2", "q-secret-3", "q-secret-4", "ghp-token-5", "smtp-token-6", "db-secret-7"]) {
        expect(printed).not.toContain(secret)
      }
      expect(entries(summary(all))).toMatchObject({
        OTEL_EXPORTER_OTLP_ENDPOINT: "https://redacted@otel.example.com/v1?api-key=redacted&X-Honeycomb-Team=redacted&region=eu#redacted",
        SMTP_URL: "smtps://redacted@smtp.example.com:465/?access_token=redacted",
        // A database's user is a role, worth showing.
        DATABASE_URL: "postgres://app:redacted@db.example.com/images"
      })
    }))

  it.effect("a password in the URL's query (node-postgres reads `?password=`) is not shown either", () =>
    Effect.gen(function* () {
      const all = yield* read({ ...secretVariables, DATABASE_URL: "postgres://app@db.example.com/images?password=qp-secret-555&sslmode=require" })
      expect(JSON.stringify(summary(all))).not.toContain("qp-secret-555")
      expect(entries(summary(all))).toMatchObject({ DATABASE_URL: "postgres://app@db.example.com/images?password=redacted&sslmode=require" })
    }))

  it.effect("the model's base URL shows the value of `api-version` only: any other may be a key (Azure Functions' `?code=`)", () =>
    Effect.gen(function* () {
      const all = yield* read({ ...secretVariables, OPENAI_BASE_URL: "https://fn.azurewebsites.net/api/v1?api-version=2024-10-21&code=AbCdSecretFunctionKey==" })
      expect(JSON.stringify(summary(all))).not.toContain("AbCdSecretFunctionKey")
      expect(entries(summary(all))).toMatchObject({ OPENAI_BASE_URL: "https://fn.azurewebsites.net/api/v1?api-version=2024-10-21&code=redacted" })
    }))

  it.effect("SESSION_LIFETIME is shown as it is written, so the value shown can be set again", () =>
    Effect.gen(function* () {
      const shown = (value?: string) =>
        Effect.map(read(value === undefined ? {} : { SESSION_LIFETIME: value }), (all) => entries(summary(all))["SESSION_LIFETIME"])
      expect([yield* shown(), yield* shown("12 hours"), yield* shown("90 minutes"), yield* shown("400 days")])
        .toEqual(["7 days", "12 hours", "90 minutes", "400 days"])
      expect(yield* shown(String(yield* shown("36 hours")))).toBe("36 hours")
    }))

  it.effect("an empty HOST is unset: every address, and said so", () =>
    Effect.gen(function* () {
      expect(entries(summary(yield* read({ HOST: "" })))).toMatchObject({ HOST: "0.0.0.0" })
      expect(entries(summary(yield* read({ HOST: " 127.0.0.1 " })))).toMatchObject({ HOST: "127.0.0.1" })
    }))

  it.effect("an empty METRICS_TOKEN is no token (a compose file's `${METRICS_TOKEN:-}`): /metrics stays open to loopback", () =>
    Effect.gen(function* () {
      expect(entries(summary(yield* read({ METRICS_TOKEN: "" })))).toMatchObject({ METRICS_TOKEN: "unset: /metrics answers loopback only" })
    }))

  it.effect("every refused value still stops the start with its own message", () =>
    Effect.gen(function* () {
      const refusals: ReadonlyArray<readonly [Record<string, string>, string]> = [
        [{ UPLOAD_MEMORY_MB: "10" }, "UPLOAD_MEMORY_MB must be at least 11"],
        [{ TRUSTED_PROXIES: "-1" }, "TRUSTED_PROXIES must be 0 or more"],
        [{ API_KEY_SECRET: "short" }, "API_KEY_SECRET must be at least 32 bytes (e.g. `openssl rand -base64 48`)"],
        [{ PORT: "http" }, "PORT: Expected a network port value but received \"http\""],
        [{ SIGNUP: "maybe" }, "SIGNUP: Expected one of (open, closed) but received \"maybe\""],
        [{ SIGNUP_CREDITS: "-1" }, "SIGNUP_CREDITS must be a whole number from 0 to 2147483647"],
        [{ SMTP_URL: "https://mail.example.com" }, "SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtps://user:password@mail.example.com"],
        [{ IMAGE_URL_ALLOW: "intranet, not a host!" }, "IMAGE_URL_ALLOW: not a host name, address or CIDR range: not a host!"],
        [{ IMAGE_URL_TIMEOUT_MS: "0" }, "IMAGE_URL_TIMEOUT_MS must be at least 1"],
        [{ MODEL_TIMEOUT_MS: "0" }, "MODEL_TIMEOUT_MS: must be a positive integer"],
        [{ MODEL_MAX_OUTPUT_TOKENS: "-1" }, "MODEL_MAX_OUTPUT_TOKENS: must be a positive integer"],
        [{ UPLOAD_TIMEOUT_MS: "abc" }, "UPLOAD_TIMEOUT_MS: Expected an integer value but received \"abc\""],
        // Past a timer's 32 bits the model client's timer fired at once: every describe a 500.
        [{ MODEL_TIMEOUT_MS: "2147483648" }, "MODEL_TIMEOUT_MS: must be a positive integer of at most 2147483647 (about 24 days)"],
        [{ OPENAI_BASE_URL: "ftp://example.com" }, "OPENAI_BASE_URL: must be an http(s) URL"],
        [{ MODEL_IMAGE_DETAIL: "medium" }, "MODEL_IMAGE_DETAIL: Expected one of (low, high, auto) but received \"medium\""],
        [{ MODEL_IMAGE_AS_UPLOADED: "jpeg,gif" }, "MODEL_IMAGE_AS_UPLOADED: must be `none` or a comma-separated list of jpeg, png, webp"],
        [{ LOG_FORMAT: "xml" }, "LOG_FORMAT: Expected one of (json, logfmt, pretty) but received \"xml\""],
        [{ DESCRIBER: "gpt" }, "DESCRIBER: Expected one of (offline, openai-compatible, ) but received \"gpt\""],
        [{ PUBLIC_URL: "notaurl" }, "PUBLIC_URL must be an http(s) URL without a user name, password, query or fragment, e.g. https://images.example.com"],
        // Printed in the summary (a password shown), and paths appended to it (after a query, every link broken).
        [{ PUBLIC_URL: "https://user:secret@images.example.com" }, "PUBLIC_URL must be an http(s) URL without a user name"],
        [{ PUBLIC_URL: "https://images.example.com/base/?a=b" }, "PUBLIC_URL must be an http(s) URL without a user name"],
        [{ PUBLIC_URL: "https://images.example.com/#top" }, "PUBLIC_URL must be an http(s) URL without a user name"],
        [{ DATABASE_URL: "notaurl" }, "DATABASE_URL must be a postgres:// URL, e.g. postgres://user:password@db.example.com:5432/images"],
        [{ UPLOAD_TIMEOUT_MS: "0" }, "UPLOAD_TIMEOUT_MS must be at least 1"],
        [{ FORM_TIMEOUT_MS: "-1" }, "FORM_TIMEOUT_MS must be at least 1"],
        [{ SHUTDOWN_TIMEOUT_MS: "-5" }, "SHUTDOWN_TIMEOUT_MS must be 0 or more"],
        [{ WEBHOOK_POLL_MS: "0" }, "WEBHOOK_POLL_MS must be at least 1"],
        // 0 or less ended every session before its first page; a huge one was an invalid date, a 500 at log-in.
        [{ SESSION_LIFETIME: "-5 hours" }, "SESSION_LIFETIME must be from 1 minute to 400 days, e.g. `12 hours`"],
        [{ SESSION_LIFETIME: "59 seconds" }, "SESSION_LIFETIME must be from 1 minute to 400 days, e.g. `12 hours`"],
        [{ SESSION_LIFETIME: "999999999 days" }, "SESSION_LIFETIME must be from 1 minute to 400 days, e.g. `12 hours`"]
      ]
      // As the start's log line says it (`reason`): the variable named, whatever the rule's own words.
      for (const [variables, message] of refusals) {
        const exit = yield* Effect.exit(read(variables))
        const reason = Exit.match(exit, { onFailure: (cause) => Option.match(Cause.failureOption(cause), { onNone: () => Cause.pretty(cause), onSome: explained }), onSuccess: () => "accepted" })
        expect(reason, JSON.stringify(variables)).toContain(message)
      }
    }))

  it.scopedLive("a started service prints it as one line, with every setting, and no secret anywhere in its output", () =>
    Effect.gen(function* () {
      const names = yield* settingNames
      // On PostgreSQL when there is one (trust authentication ignores the password), else PGlite.
      const database = postgresUrl === undefined
        ? Option.none()
        : Option.some(yield* Effect.map(freshPostgresUrl(postgresUrl), ({ url }) => {
          const withPassword = new URL(url)
          withPassword.password = secrets.databasePassword
          return withPassword.toString()
        }))
      const service = yield* startService({
        ...secretVariables,
        ...Option.match(database, { onNone: () => ({}), onSome: (url) => ({ DATABASE_URL: url }) }),
        DATA_DIR: yield* tempDataDir,
        LOG_FORMAT: "json"
      })
      const { stderr, stdout } = yield* service.stop("SIGTERM")
      const output = stdout + stderr
      for (const secret of Object.values(secrets)) expect(output).not.toContain(secret)
      const lines = stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { message: unknown; logLevel: string; annotations?: unknown })
      // A stop by SIGTERM is no failure: nothing logged as an error.
      expect(lines.filter((line) => line.logLevel === "ERROR")).toEqual([])
      const summaries = lines.filter((line) => JSON.stringify(line).includes("PORT"))
      expect(summaries).toHaveLength(1)
      expect(summaries[0]?.message).toBe("configuration")
      // The settings are the line's annotations, each section an object, so a JSON log pipeline reads them as fields.
      const { describer, ...sections } = summaries[0]?.annotations as { describer: unknown } & Record<string, object>
      expect(Object.keys(Object.assign({}, ...Object.values(sections))).sort()).toEqual([...names].sort())
      expect(describer).toBe("openai-compatible (gpt-4o-mini at http://127.0.0.1:9/v1)")
      // The settings are in that line alone: no other start-up line repeats a section.
      const heads = lines.map((line) => (Array.isArray(line.message) ? line.message[0] : line.message))
      expect(heads.filter((head) => ["dashboard", "e-mail", "describer", "exporting traces"].includes(String(head)))).toEqual([])
    }), 60_000)
})
