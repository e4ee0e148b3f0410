/**
 * The image started and stopped (README "Containers"): the production start-up rule for the
 * describer, and `docker stop` with a request in flight. Needs a Docker engine and the built image:
 * `npm run test:container` (skipped otherwise).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { answerRequested, delayed, fakeOpenAi } from "../support/fakeOpenAi.ts"
import { noiseImage } from "../support/hostileImages.ts"
import { describeAt } from "../support/liveService.ts"
import {
  accountWithKey,
  containerSkipReason,
  containerTests,
  docker,
  dockerOk,
  readyz,
  runContainer,
  waitUntil
} from "../support/docker.ts"

const timeout = 240_000

if (containerTests) {
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
  describe.skip(containerSkipReason, () => it("the image, started and stopped", () => {}))
}
