/**
 * A service process under test, seen from the test: its database, opened by the test itself to set
 * up accounts before the process starts and to read balances, ledger and usage rows afterwards
 * (on PostgreSQL, also while it runs); requests to its URL; waiting on a condition.
 */
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Redacted, Schedule } from "effect"
import { ServicesLive } from "../../src/app.ts"
import type { SettingsTags } from "../../src/config/Settings.ts"
import * as Database from "../../src/db/Database.ts"
import { testSettingsOrDie, type Variables } from "./config.ts"
import { freshPostgresUrl } from "./database.ts"
import { customer, type DescribeFields, formData } from "./describe.ts"
import { type Env, tempDataDir } from "./process.ts"

/** Keys made by the test verify in the service: both sign with this. */
const apiKeySecret = "reliability-test-secret-0123456789abcdef"

/** An account made by `customer`: its id, a key, and effects reading it through the services. */
export type Customer = Effect.Effect.Success<ReturnType<typeof customer>>

export interface Store {
  readonly name: "PGlite" | "PostgreSQL"
  /** What a service process needs to run on this database. */
  readonly env: Env
  /** The services over it, for the test. On PGlite only while no service process holds the folder. */
  readonly layer: Layer.Layer<Layer.Layer.Success<typeof ServicesLive> | SqlClient.SqlClient | SettingsTags>
}

const storeLayer = <E>(database: Layer.Layer<SqlClient.SqlClient, E>, variables: Variables) =>
  ServicesLive.pipe(Layer.provideMerge(Layer.merge(Layer.orDie(database), testSettingsOrDie({ ...variables, API_KEY_SECRET: apiKeySecret }))))

/** A PGlite data folder of its own, removed with the scope. */
export const pgliteStore = Effect.map(tempDataDir, (dataDir): Store => ({
  name: "PGlite",
  env: { DATA_DIR: dataDir, API_KEY_SECRET: apiKeySecret },
  // Opened as the CLI would: it waits for nobody and refuses a folder a live service holds.
  layer: storeLayer(Database.layerPglite(dataDir, "cli"), { DATA_DIR: dataDir })
}))

/**
 * A fresh database on the server of `serverUrl`, dropped with the scope. The service's sessions
 * carry `application_name=service` so the test can tell them from its own.
 */
export const postgresStore = (serverUrl: string) =>
  Effect.map(freshPostgresUrl(serverUrl), (fresh): Store => {
    const serviceUrl = new URL(fresh.url)
    serviceUrl.searchParams.set("application_name", serviceApplicationName)
    return {
      name: "PostgreSQL",
      env: { DATABASE_URL: serviceUrl.toString(), API_KEY_SECRET: apiKeySecret },
      layer: storeLayer(Database.layerPostgres(Redacted.make(fresh.url)), { DATABASE_URL: fresh.url })
    }
  })

export const serviceApplicationName = "service"

/** Runs `effect` with the store open; closes it after. */
export const inStore = (store: Store) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provide(effect, store.layer)

/** An account's money as the database has it. */
export interface Book {
  readonly credits: number
  readonly reserved: number
  /** The sum of the positive ledger rows (grants). */
  readonly granted: number
  /** Ledger rows charging one describe. */
  readonly charges: number
  /** Charges whose usage row is not a charged 200 (must be 0). */
  readonly chargedFailures: number
  /** Usage rows counted by `"<state> <status>"`, e.g. `"charged 200"`, `"released 500"`, `"reserved"`. */
  readonly usage: Readonly<Record<string, number>>
}

export const bookOf = (accountId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [account] = yield* sql<{ credits: number; reserved: number }>`SELECT credits, reserved FROM accounts
      WHERE id = ${accountId}`
    const [ledger] = yield* sql<{ granted: number; charges: number }>`SELECT
        coalesce(sum(amount) FILTER (WHERE amount > 0), 0)::int AS granted,
        count(*) FILTER (WHERE amount = -1 AND reason = 'describe')::int AS charges
      FROM credit_ledger WHERE account_id = ${accountId}`
    const [failures] = yield* sql<{ n: number }>`SELECT count(*)::int AS n
      FROM credit_ledger l JOIN usage u ON u.id = l.usage_id
      WHERE l.account_id = ${accountId} AND NOT (u.state = 'charged' AND u.status = 200)`
    const usage = yield* sql<{ state: string; status: number | null; n: number }>`SELECT state, status, count(*)::int AS n
      FROM usage WHERE account_id = ${accountId} GROUP BY state, status ORDER BY state, status`
    return {
      credits: account?.credits ?? Number.NaN,
      reserved: account?.reserved ?? Number.NaN,
      granted: ledger?.granted ?? 0,
      charges: ledger?.charges ?? 0,
      chargedFailures: failures?.n ?? 0,
      usage: Object.fromEntries(usage.map((row) => [row.status === null ? row.state : `${row.state} ${row.status}`, row.n]))
    } satisfies Book
  }).pipe(Effect.orDie)

/** What a client sees of an answer. */
export interface Answer {
  readonly status: number
  readonly body: unknown
}

/** One request over a fresh connection; fails when no answer comes (refused, cut, or late). */
const exchange = (url: string, init: RequestInit, timeout: Duration.DurationInput) =>
  Effect.tryPromise({
    try: async (signal): Promise<Answer> => {
      const response = await fetch(url, {
        ...init,
        keepalive: false,
        signal: AbortSignal.any([signal, AbortSignal.timeout(Duration.toMillis(timeout))])
      })
      return { status: response.status, body: await response.json() }
    },
    catch: (cause) => new Error(`no answer from ${url}: ${String(cause)}`)
  })

/** A `POST /api/describe` body made by hand: exact bytes and headers, another path or query. */
export interface RawUpload {
  readonly contentType: string
  readonly body: Uint8Array
  readonly headers?: Readonly<Record<string, string>>
  /** Default `/api/describe`. */
  readonly path?: string
}

/** `POST /api/describe` with a form, as an HTTP client builds it. */
export const describeAt = (url: string, key: string, form: DescribeFields, timeout: Duration.DurationInput = "30 seconds") =>
  exchange(`${url}/api/describe`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: formData(form) }, timeout)

/** `POST /api/describe` with a body made by hand. */
export const uploadAt = (url: string, key: string, upload: RawUpload, timeout: Duration.DurationInput = "60 seconds") =>
  exchange(`${url}${upload.path ?? "/api/describe"}`, {
    method: "POST",
    headers: { ...upload.headers, authorization: `Bearer ${key}`, "content-type": upload.contentType },
    body: upload.body
  }, timeout)

/** `GET /api/tokens`. */
export const tokensAt = (url: string, key: string, timeout: Duration.DurationInput = "10 seconds") =>
  exchange(`${url}/api/tokens`, { headers: { authorization: `Bearer ${key}` } }, timeout)

/** `GET /readyz`, as a probe with `timeout` asks it. */
export const readyzAt = (url: string, timeout: Duration.DurationInput = "10 seconds") => exchange(`${url}/readyz`, {}, timeout)

/** Repeats `check` every `every` until it gives true; dies with `what` when `upTo` has passed. */
export const waitFor = <E, R>(
  what: string,
  check: Effect.Effect<boolean, E, R>,
  options: { readonly every?: Duration.DurationInput; readonly upTo?: Duration.DurationInput } = {}
) =>
  check.pipe(
    Effect.catchAll(() => Effect.succeed(false)),
    Effect.repeat({ schedule: Schedule.spaced(options.every ?? "50 millis"), until: (met) => met }),
    Effect.timeoutFail({
      duration: options.upTo ?? "20 seconds",
      onTimeout: () => new Error(`still waiting for ${what} after ${Duration.format(options.upTo ?? "20 seconds")}`)
    }),
    Effect.orDie,
    Effect.asVoid
  )
