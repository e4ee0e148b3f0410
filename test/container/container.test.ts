/**
 * The image as an operator runs it (`docker run`, README "Docker"): health, readiness, the operator
 * CLI inside the container, a describe, the data volume across a restart, the user it runs as,
 * `docker stop` with a request in flight, and the production start-up rule for the describer.
 * Needs a Docker engine and the built image: `npm run test:container` (skipped otherwise).
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Schema } from "effect"
import { noiseImage } from "../support/hostileImages.ts"
import { answerRequested, delayed, fakeOpenAi } from "../support/fakeOpenAi.ts"
import { describeAt, tokensAt } from "../support/liveService.ts"
import {
  type Container,
  containerSkipReason,
  containerTests,
  docker,
  dockerOk,
  healthy,
  image,
  runContainer,
  volume,
  waitUntil
} from "../support/docker.ts"

const timeout = 240_000

const AccountPrinted = Schema.parseJson(Schema.Struct({ id: Schema.String }))
const KeyPrinted = Schema.parseJson(Schema.Struct({ key: Schema.String }))
const Status = Schema.Struct({ user: Schema.Struct({ credits: Schema.Number }) })

/** `bun run admin ...` inside the container, as the README shows it. */
const admin = (container: Container, ...args: ReadonlyArray<string>) =>
  dockerOk("exec", container.name, "bun", "run", "admin", ...args)

/** An account with `credits` and a key, made with the CLI inside the container. */
const accountWithKey = (container: Container, credits: number) =>
  Effect.gen(function* () {
    const account = Schema.decodeUnknownSync(AccountPrinted)(yield* admin(container, "account", "create", "--name", "Shop", "--credits", String(credits)))
    const { key } = Schema.decodeUnknownSync(KeyPrinted)(yield* admin(container, "key", "create", account.id, "--name", "CMS"))
    return { accountId: account.id, key }
  })

const creditsOf = (container: Container, key: string) =>
  Effect.map(tokensAt(container.url, key), (answer) => ({ status: answer.status, credits: Schema.decodeUnknownSync(Status)(answer.body).user.credits }))

const readyz = (container: Container) =>
  Effect.promise(() => fetch(`${container.url}/readyz`).then((r) => r.status, () => 0))

/** Each process of the container: `<uid> <command>` (from /proc, the image has no ps). */
const processes = (container: Container) =>
  dockerOk("exec", container.name, "sh", "-c", "for p in /proc/[0-9]*; do echo \"$(awk '/^Uid:/ {print $2}' $p/status) $(tr '\\0' ' ' < $p/cmdline)\"; done")

/** The service on a data volume, with the offline describer: shared by the tests below, in order. */
class Offline extends Context.Tag("Offline")<Offline, { readonly container: Container; readonly customer: { readonly accountId: string; readonly key: string } }>() {}
const OfflineLive = Layer.scoped(
  Offline,
  Effect.gen(function* () {
    const data = yield* volume
    const container = yield* runContainer({ DESCRIBER: "offline" }, ["-v", `${data}:/data`])
    yield* healthy(container)
    return { container, customer: yield* accountWithKey(container, 3) }
  })
)

if (containerTests) {
  layer(OfflineLive, { timeout, excludeTestServices: true })(`the image ${image}, NODE_ENV=production, DESCRIBER=offline`, (it) => {
    it.effect("becomes healthy and /readyz answers 200", () =>
      Effect.gen(function* () {
        const { container } = yield* Offline
        expect(yield* container.inspect("{{.State.Health.Status}}")).toBe("healthy")
        expect(yield* readyz(container)).toBe(200)
      }))

    it.effect("runs as a user other than root, and its data folder is closed to other users", () =>
      Effect.gen(function* () {
        const { container } = yield* Offline
        const running = (yield* processes(container)).split("\n").filter((line) => line.includes("bun"))
        expect(running.length).toBeGreaterThan(0)
        expect(running.filter((line) => line.startsWith("0 "))).toEqual([])
        expect(yield* dockerOk("exec", container.name, "stat", "-c", "%U %a", "/data")).toBe("bun 700")
      }))

    it.effect("nothing inside the data folder is readable by group or others (folders 0700, files 0600)", () =>
      Effect.gen(function* () {
        const { container } = yield* Offline
        expect(yield* dockerOk("exec", container.name, "find", "/data", "-perm", "/044")).toBe("")
      }))

    it.effect("the operator CLI inside the container made the account; a describe with a generated image uses one credit", () =>
      Effect.gen(function* () {
        const { container, customer } = yield* Offline
        const answer = yield* describeAt(container.url, customer.key, { image: yield* Effect.promise(() => noiseImage("jpeg", 7, 320, 240)) })
        expect(answer.status).toBe(200)
        expect(answer.body).toMatchObject({ title: expect.any(String), alternativeText: expect.any(String) })
        expect(yield* creditsOf(container, customer.key)).toEqual({ status: 200, credits: 2 })
        expect(JSON.parse(yield* admin(container, "credits", "add", customer.accountId, "5"))).toMatchObject({ credits: 7 })
      }))

    it.effect("the data volume keeps the account, its key and its balance across a restart", () =>
      Effect.gen(function* () {
        const { container, customer } = yield* Offline
        yield* dockerOk("restart", container.name)
        yield* healthy(container)
        expect(yield* creditsOf(container, customer.key)).toEqual({ status: 200, credits: 7 })
      }))
  })

  describe("the image, started and stopped", () => {
    it.scopedLive("with a model endpoint it starts in production; `docker stop` lets a request in flight finish and exits 0", () =>
      Effect.gen(function* () {
        const model = yield* fakeOpenAi([delayed(4_000, answerRequested)])
        const container = yield* runContainer({ OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "sk-test" })
        yield* waitUntil(container, "/readyz 200", Effect.map(readyz(container), (status) => status === 200))
        const { key } = yield* accountWithKey(container, 1)
        const inFlight = yield* Effect.fork(describeAt(container.url, key, { image: yield* Effect.promise(() => noiseImage("png", 3)) }))
        yield* waitUntil(container, "the request at the model", Effect.sync(() => model.received.length === 1))
        const stopped = yield* Effect.fork(dockerOk("stop", container.name)) // Docker's default grace: 10 s
        expect(yield* Fiber.join(inFlight)).toMatchObject({ status: 200, body: { title: "title from the fake model" } })
        yield* Fiber.join(stopped)
        expect(yield* container.inspect("{{.State.ExitCode}} {{.State.OOMKilled}}")).toBe("0 false")
      }), timeout)

    it.scopedLive("in production with no model endpoint and no DESCRIBER=offline it refuses to start, naming OPENAI_API_KEY", () =>
      Effect.gen(function* () {
        const container = yield* runContainer({})
        // Either it ends (the rule) or it gets ready (no rule): whichever comes first.
        yield* waitUntil(
          container,
          "an exit or readiness",
          Effect.zipWith(container.inspect("{{.State.Running}}"), readyz(container), (running, status) => running === "false" || status === 200)
        )
        const logs = yield* docker("logs", container.name)
        expect(yield* container.inspect("{{.State.Running}}")).toBe("false")
        expect(yield* container.inspect("{{.State.ExitCode}}")).not.toBe("0")
        expect(`${logs.stdout}\n${logs.stderr}`).toContain("OPENAI_API_KEY")
      }), timeout)
  })
} else {
  describe.skip(containerSkipReason, () => it("the image, run by a Docker engine", () => {}))
}
