/**
 * compose.yaml's stack (PostgreSQL, the app's replicas, nginx in front) brought up by `docker run`s
 * on the host network, as `docker compose up` would with the file's images, environment, health
 * check and replica count. The engines of these machines have no bridge and no Docker DNS, so each
 * container gets a loopback port of its own: the names `postgres` and `app` become 127.0.0.1 ports
 * (in DATABASE_URL and in deploy/nginx.conf, see nginxConf.ts). Everything is removed with the scope.
 */
import { Effect, Schema } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Container, dockerOk, healthy, runContainer, runImage, type Running, waitUntil } from "./docker.ts"
import { loopbackConf } from "./nginxConf.ts"
import { freePort } from "./process.ts"

const Environment = Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number) })

const Compose = Schema.Struct({
  services: Schema.Struct({
    postgres: Schema.Struct({
      image: Schema.String,
      environment: Environment,
      healthcheck: Schema.Struct({ test: Schema.Tuple([Schema.Literal("CMD")], Schema.String) })
    }),
    app: Schema.Struct({ deploy: Schema.Struct({ replicas: Schema.Int }), environment: Environment }),
    proxy: Schema.Struct({ image: Schema.String })
  })
})

export const compose = Schema.decodeUnknownSync(Compose)(
  Bun.YAML.parse(readFileSync(new URL("../../compose.yaml", import.meta.url), "utf8"))
)

/** An `environment:` block with compose's `${NAME:-default}` filled from `variables` (the shell's, in compose). */
export const interpolated = (environment: typeof Environment.Type, variables: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(environment).map(([name, value]) => [
    name,
    String(value).replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_, variable: string, fallback?: string) => variables[variable] || (fallback ?? ""))
  ]))

/** Free loopback ports, all different. */
const freePorts = (count: number) =>
  Effect.iterate([] as ReadonlyArray<number>, {
    while: (ports) => ports.length < count,
    body: (ports) => Effect.map(freePort, (port) => (ports.includes(port) ? ports : [...ports, port]))
  })

export interface Stack {
  readonly postgres: Running
  readonly replicas: ReadonlyArray<Container>
  readonly proxy: Running & { readonly url: string; readonly port: number }
  /** compose.yaml's app environment as the replicas got it. */
  readonly appEnv: Readonly<Record<string, string>>
  /** A query run by psql inside the PostgreSQL container, on the app's database: unaligned rows. */
  readonly psql: (query: string) => Effect.Effect<string>
}

/** The nginx of compose.yaml in front of `replicas`, with deploy/nginx.conf made for loopback. */
const proxyFor = (proxyImage: string, replicas: ReadonlyArray<Container>) =>
  Effect.gen(function* () {
    const [port = 0] = yield* freePorts(1)
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "imd-stack-nginx-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    writeFileSync(join(dir, "default.conf"), loopbackConf(port, replicas.map((replica) => replica.port)))
    const proxy = yield* runImage("proxy", proxyImage, {}, ["-v", `${join(dir, "default.conf")}:/etc/nginx/conf.d/default.conf:ro`])
    const url = `http://127.0.0.1:${port}`
    yield* waitUntil(proxy, "nginx passing /readyz through", Effect.promise(() => fetch(`${url}/readyz`).then((r) => r.ok, () => false)))
    return { ...proxy, url, port }
  })

/**
 * The stack with `variables` for compose.yaml's `${...}` (the model's endpoint, say). Returns once
 * PostgreSQL and every replica are healthy and nginx passes requests through.
 */
export const composeStack = (variables: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const { postgres: pg, app, proxy } = compose.services
    const [pgPort = 0] = yield* freePorts(1)
    const pgEnv = interpolated(pg.environment, variables)
    // PGPORT: the port of the server and of pg_isready in the container (its own image and the stand-in's).
    const postgres = yield* runImage("postgres", pg.image, { ...pgEnv, PGPORT: String(pgPort) }, [
      "--health-cmd", pg.healthcheck.test.slice(1).join(" "), "--health-interval", "1s"
    ], ["-c", "listen_addresses=127.0.0.1"])
    yield* healthy(postgres)
    const appEnv = interpolated(app.environment, variables)
    const database = new URL(appEnv.DATABASE_URL ?? "")
    database.host = `127.0.0.1:${pgPort}` // the service name `postgres`, on the host network
    const env = { ...appEnv, DATABASE_URL: database.toString() }
    const replicas = yield* Effect.forEach(Array.from({ length: app.deploy.replicas }), () => runContainer(env))
    yield* Effect.forEach(replicas, healthy, { concurrency: "unbounded" })
    const psql = (query: string) =>
      dockerOk("exec", postgres.name, "psql", "-U", pgEnv.POSTGRES_USER ?? "", "-d", pgEnv.POSTGRES_DB ?? "", "-At", "-c", query)
    return { postgres, replicas, proxy: yield* proxyFor(proxy.image, replicas), appEnv: env, psql } satisfies Stack
  })
