/**
 * A figure for docs/BENCHMARKS.md: the time to bring compose.yaml's stack up the way its test does
 * (test/support/stack.ts): from the first `docker run` (PostgreSQL) to both replicas healthy and nginx
 * passing `/readyz` through; health is probed every second. Everything is removed after each run.
 * Needs the engine, the image and the stand-ins (npm run test:container builds them).
 *   DOCKER=... bun scripts/container/stack-startup.ts [runs]
 */
import { Effect } from "effect"
import { answerRequested, fakeOpenAi } from "../../test/support/fakeOpenAi.ts"
import { composeStack } from "../../test/support/stack.ts"

const runs = Number(process.argv[2] ?? 3)
for (let run = 1; run <= runs; run++) {
  const seconds = await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
    const model = yield* fakeOpenAi([answerRequested])
    const start = performance.now()
    yield* composeStack({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: model.url })
    return (performance.now() - start) / 1000
  })))
  process.stdout.write(`run ${run}: ${seconds.toFixed(1)} s from the first docker run to nginx passing /readyz through\n`)
}
