/**
 * The service's image run by a Docker engine, as an operator runs it: host networking on a free
 * loopback port (the engines of these machines have no bridge), each container and volume removed
 * with the test's scope. `npm run test:container` builds the image and sets CONTAINER_TESTS=1.
 * These effects need the live clock (`it.scopedLive`, or `layer(..., { excludeTestServices: true })`).
 */
import { Duration, Effect, Schedule, Schema } from "effect"
import { tokensAt } from "./liveService.ts"
import { freePort } from "./process.ts"

/** Set by `scripts/container/test.sh` (and `.ci/run`) once the engine runs and the image is built. */
export const containerTests = process.env.CONTAINER_TESTS === "1"
export const containerSkipReason =
  "container: skipped because CONTAINER_TESTS is not set (run `npm run test:container`, which needs a Docker engine)"
export const image = process.env.CONTAINER_IMAGE ?? "image-metadata:test"
const dockerCli = process.env.DOCKER ?? "docker"

export interface Ran {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

/** `docker ...args` to its end (killed after two minutes). */
export const docker = (...args: ReadonlyArray<string>) =>
  Effect.promise(async (): Promise<Ran> => {
    const child = Bun.spawn({ cmd: [dockerCli, ...args], stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: 120_000 })
    const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
    return { exitCode: await child.exited, stdout: stdout.trim(), stderr: stderr.trim() }
  })

/** Like `docker`, for a command expected to succeed: its stdout, or a defect with what it printed. */
export const dockerOk = (...args: ReadonlyArray<string>) =>
  Effect.flatMap(docker(...args), (ran) =>
    ran.exitCode === 0 ? Effect.succeed(ran.stdout) : Effect.dieMessage(`docker ${args.join(" ")} exited with ${ran.exitCode}:\n${ran.stderr}`))

const names = { next: 0 }
/** A name no other run of the suite uses. */
export const uniqueName = (what: string) => `imd-test-${what}-${process.pid}-${names.next++}`

/** A named volume, removed with the scope (after the containers using it, released first). */
export const volume = Effect.acquireRelease(
  Effect.sync(() => uniqueName("data")).pipe(Effect.tap((name) => dockerOk("volume", "create", name))),
  (name) => docker("volume", "rm", "-f", name)
)

/** A container started by the test. */
export interface Running {
  readonly name: string
  /** `docker inspect -f <format>` of the container. */
  readonly inspect: (format: string) => Effect.Effect<string>
}

/** The service's container, answering HTTP on `url`. */
export interface Container extends Running {
  readonly port: number
  readonly url: string
}

/**
 * `docker run -d --network host` of `imageName` with `env`, `args` (before the image name) and
 * `command` (after it). Removed with the scope, with its anonymous volumes.
 */
export const runImage = (
  what: string,
  imageName: string,
  env: Readonly<Record<string, string>>,
  args: ReadonlyArray<string> = [],
  command: ReadonlyArray<string> = []
) =>
  Effect.gen(function* () {
    const name = uniqueName(what)
    const envArgs = Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`])
    yield* Effect.acquireRelease(
      dockerOk("run", "-d", "--name", name, "--network", "host", ...envArgs, ...args, imageName, ...command),
      () => docker("rm", "-f", "-v", name)
    )
    return { name, inspect: (format: string) => dockerOk("inspect", "-f", format, name) } satisfies Running
  })

/**
 * The service's image on a free loopback port, with `env` and `args` (before the image name);
 * health checked every second so that `healthy` follows readiness closely. Removed with the scope.
 */
export const runContainer = (env: Readonly<Record<string, string>>, args: ReadonlyArray<string> = []) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const running = yield* runImage("app", image, { HOST: "127.0.0.1", PORT: String(port), ...env }, ["--health-interval", "1s", ...args])
    return { ...running, port, url: `http://127.0.0.1:${port}` } satisfies Container
  })

/** Repeats `check` every 200 ms until it is true; dies with `what` and the container's logs after `upTo`. */
export const waitUntil = (container: Running, what: string, check: Effect.Effect<boolean>, upTo: Duration.DurationInput = "90 seconds") =>
  check.pipe(
    Effect.repeat({ schedule: Schedule.spaced("200 millis"), until: (met) => met }),
    Effect.timeout(upTo),
    Effect.catchTag("TimeoutException", () =>
      Effect.flatMap(docker("logs", "--tail", "30", container.name), (logs) =>
        Effect.dieMessage(`${container.name}: still waiting for ${what} after ${Duration.format(upTo)}:\n${logs.stdout}\n${logs.stderr}`)))
  )

/** Until Docker's health check reports `healthy`. */
export const healthy = (container: Running) =>
  waitUntil(container, "healthy", Effect.map(container.inspect("{{.State.Health.Status}}"), (status) => status === "healthy"))

/** `GET /readyz`: its status, 0 when nothing answers. */
export const readyz = (container: Container) =>
  Effect.promise(() => fetch(`${container.url}/readyz`).then((r) => r.status, () => 0))

/** `bun run admin ...` inside the container, as the README shows it. */
export const admin = (container: Container, ...args: ReadonlyArray<string>) =>
  dockerOk("exec", container.name, "bun", "run", "admin", ...args)

const AccountPrinted = Schema.parseJson(Schema.Struct({ id: Schema.String }))
const KeyPrinted = Schema.parseJson(Schema.Struct({ key: Schema.String }))
const Status = Schema.Struct({ user: Schema.Struct({ credits: Schema.Number }) })

/** An account with `credits` and a key, made with the CLI inside the container. */
export const accountWithKey = (container: Container, credits: number) =>
  Effect.gen(function* () {
    const account = Schema.decodeUnknownSync(AccountPrinted)(yield* admin(container, "account", "create", "--name", "Shop", "--credits", String(credits)))
    const { key } = Schema.decodeUnknownSync(KeyPrinted)(yield* admin(container, "key", "create", account.id, "--name", "CMS"))
    return { accountId: account.id, key }
  })

/** `GET /api/tokens` with the key: its status and the balance it shows. */
export const creditsOf = (url: string, key: string) =>
  Effect.map(tokensAt(url, key), (answer) => ({ status: answer.status, credits: Schema.decodeUnknownSync(Status)(answer.body).user.credits }))
