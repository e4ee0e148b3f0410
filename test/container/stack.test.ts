/**
 * compose.yaml's stack (README "Containers"): two replicas of the image on one PostgreSQL, behind
 * nginx with deploy/nginx.conf, brought up with `docker run`s on the host network
 * (test/support/stack.ts), the model a local fake. Needs a Docker engine, the built image and the
 * stand-ins for compose's images: `npm run test:container` (skipped otherwise).
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer } from "effect"
import { answerRequested, fakeOpenAi, type FakeOpenAi, hanging } from "../support/fakeOpenAi.ts"
import { noiseImage } from "../support/hostileImages.ts"
import { describeAt } from "../support/liveService.ts"
import { metricsSpellings } from "../support/metricsPaths.ts"
import { requestHead, sendRaw } from "../support/rawHttp.ts"
import { type Stack, composeStack } from "../support/stack.ts"
import {
  accountWithKey,
  type Container,
  containerSkipReason,
  containerTests,
  creditsOf,
  docker,
  dockerOk,
  waitUntil
} from "../support/docker.ts"

/** For bringing the stack up (the layer), and for the test that waits for the survivor's sweep (every minute). */
const timeout = 240_000

class StackUnderTest extends Context.Tag("StackUnderTest")<StackUnderTest, { readonly stack: Stack; readonly model: FakeOpenAi }>() {}
const StackLive = Layer.scoped(
  StackUnderTest,
  Effect.gen(function* () {
    const model = yield* fakeOpenAi([answerRequested])
    return { model, stack: yield* composeStack({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: model.url, METRICS_TOKEN: "stack-scrape-token" }) }
  })
)

const twoReplicas = (stack: Stack): readonly [Container, Container] => {
  const [a, b] = stack.replicas
  if (a === undefined || b === undefined || stack.replicas.length !== 2) throw new Error(`compose.yaml runs ${stack.replicas.length} replicas, not 2`)
  return [a, b]
}

/** Everything a container printed. */
const logsOf = (container: Container) => Effect.map(docker("logs", container.name), (logs) => `${logs.stdout}\n${logs.stderr}`)

const image = Effect.promise(() => noiseImage("png", 5))

if (containerTests) {
  layer(StackLive, { timeout, excludeTestServices: true })("compose.yaml's stack: two replicas, PostgreSQL, nginx", (it) => {
    it.effect("both replicas become healthy on the one PostgreSQL, and nginx passes requests through", () =>
      Effect.gen(function* () {
        const { stack } = yield* StackUnderTest
        for (const replica of twoReplicas(stack)) expect(yield* replica.inspect("{{.State.Health.Status}}")).toBe("healthy")
        expect(yield* stack.postgres.inspect("{{.State.Health.Status}}")).toBe("healthy")
        expect((yield* Effect.promise(() => fetch(`${stack.proxy.url}/readyz`))).status).toBe(200)
      }))

    it.effect("a key made by the operator CLI inside one replica works on the other; requests through nginx reach both", () =>
      Effect.gen(function* () {
        const { stack } = yield* StackUnderTest
        const [a, b] = twoReplicas(stack)
        const { key } = yield* accountWithKey(a, 3)
        expect(yield* creditsOf(b.url, key)).toEqual({ status: 200, credits: 3 })
        const described = yield* describeAt(b.url, key, { image: yield* image })
        expect(described).toMatchObject({ status: 200, body: { title: "title from the fake model" } })
        expect(yield* creditsOf(a.url, key)).toEqual({ status: 200, credits: 2 })
        // Through nginx: each answer carries the request id nginx gave it, which the replica that
        // served it logs (LOG_FORMAT=json, one line per request).
        const ids: Array<string> = []
        for (let i = 0; i < 8; i++) {
          const response = yield* Effect.promise(() => fetch(`${stack.proxy.url}/api/tokens`, { headers: { authorization: `Bearer ${key}` } }))
          expect(response.status).toBe(200)
          ids.push(response.headers.get("x-request-id") ?? "")
        }
        const servedBy = (logs: ReadonlyArray<string>) => ids.map((id) => logs.filter((log) => id !== "" && log.includes(id)).length)
        yield* waitUntil(a, "every request's log line", Effect.map(Effect.forEach([a, b], logsOf), (logs) => servedBy(logs).every((n) => n === 1)))
        const [logsA = "", logsB = ""] = yield* Effect.forEach([a, b], logsOf)
        expect(ids.filter((id) => logsA.includes(id)).length).toBeGreaterThan(0)
        expect(ids.filter((id) => logsB.includes(id)).length).toBeGreaterThan(0)
      }))

    it.effect("/metrics, in every spelling the router takes for it, is not reachable through nginx, even with the token", () =>
      Effect.gen(function* () {
        const { stack } = yield* StackUnderTest
        const [a] = twoReplicas(stack)
        const authorization = `Bearer ${stack.appEnv.METRICS_TOKEN}`
        // The replica itself serves them to a scraper with the token: the proxy is what refuses.
        expect((yield* Effect.promise(() => fetch(`${a.url}/metrics`, { headers: { authorization } }))).status).toBe(200)
        for (const path of metricsSpellings) {
          const response = yield* sendRaw({ port: stack.proxy.port, head: requestHead("GET", path, { connection: "close", authorization }) })
          // nginx's own page, not the app's JSON: the request never reached a replica.
          expect([path, response.status, response.body.includes("<center>nginx")]).toEqual([path, 404, true])
        }
        const passed = yield* sendRaw({ port: stack.proxy.port, head: requestHead("GET", "/metricsboard", { connection: "close" }) })
        expect([passed.status, passed.body]).toEqual([404, JSON.stringify({ error: "Not found" })])
      }))

    it.effect("a replica killed with SIGKILL mid-describe: the survivor's sweep gives the held credit back", () =>
      Effect.gen(function* () {
        const { stack, model } = yield* StackUnderTest
        const [a, b] = twoReplicas(stack)
        const { accountId, key } = yield* accountWithKey(b, 1)
        const book = stack.psql(`SELECT credits || ' ' || reserved FROM accounts WHERE id = '${accountId}'`)
        model.script([hanging, answerRequested])
        const inFlight = yield* Effect.fork(Effect.exit(describeAt(a.url, key, { image: yield* image }, "2 minutes")))
        yield* waitUntil(a, "the describe at the model", Effect.sync(() => model.received.length === 1))
        expect(yield* book).toBe("1 1") // one credit, held by the request in flight
        yield* dockerOk("kill", "-s", "KILL", a.name)
        expect(Exit.isFailure(yield* Fiber.join(inFlight))).toBe(true)
        expect(yield* a.inspect("{{.State.Running}} {{.State.ExitCode}}")).toBe("false 137")
        // The survivor sweeps every minute: the killed replica's session, and its lock, are gone.
        yield* waitUntil(b, "the sweep to release the hold", Effect.map(book, (held) => held === "1 0"), "100 seconds")
        expect(yield* logsOf(b)).toContain("released credits held by requests of a stopped process")
        expect(yield* stack.psql(`SELECT state || ' ' || error_kind FROM usage WHERE account_id = '${accountId}'`)).toBe("released Abandoned")
        // The credit is usable again, through nginx, which now reaches the survivor only.
        const described = yield* describeAt(stack.proxy.url, key, { image: yield* image })
        expect(described).toMatchObject({ status: 200, body: { title: "title from the fake model" } })
        expect(yield* creditsOf(b.url, key)).toEqual({ status: 200, credits: 0 })
      }), timeout)
  })
} else {
  describe.skip(containerSkipReason, () => it("compose.yaml's stack, run by a Docker engine", () => {}))
}
