/**
 * Reliability: failures cost nothing (spec §1). 1,000 requests through the real OpenAI-compatible
 * adapter to a seeded fake model that, for 30% of them, times out, fails with 503 (retried until
 * the deadline), answers unusable JSON, refuses, or rejects the request. Every request gets its
 * spec answer, the credits spent equal the number of 200s, and no failed request has a charge.
 */
import { describe, expect, it } from "@effect/vitest"
import { Array as Arr, Effect, Layer, Logger, LogLevel } from "effect"
import * as OpenAiDescriber from "../../src/services/OpenAiDescriber.ts"
import { backends } from "../support/database.ts"
import { customer, jpeg, postDescribe } from "../support/describe.ts"
import {
  answer,
  answerRequested,
  delayed,
  fakeOpenAi,
  hanging,
  refusal,
  type Reply,
  sentRequest,
  status
} from "../support/fakeOpenAi.ts"
import { testSettings } from "../support/config.ts"
import { bookOf } from "../support/liveService.ts"
import { seededAt } from "../support/seeded.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const requests = 1000
const seed = 6002
/**
 * The adapter's deadline for one describe, retries included (`MODEL_TIMEOUT_MS`). Far above what an
 * answering model takes even on a loaded machine, so only the scripted time-outs reach it; the
 * 503s give up before it, after three retries with backoff.
 */
const modelTimeoutMs = 3000

type Behaviour = "answers" | "times out" | "fails with 503" | "answers invalid JSON" | "refuses" | "rejects with 400"

/** What the model does for request `i`: 30% of the time, one way or another, it fails. */
const behaviourOf = (i: number): Behaviour => {
  const draw = seededAt(seed, i)
  return draw < 0.05
    ? "times out"
    : draw < 0.10
    ? "fails with 503"
    : draw < 0.18
    ? "answers invalid JSON"
    : draw < 0.24
    ? "refuses"
    : draw < 0.30
    ? "rejects with 400"
    : "answers"
}

/** The request's number travels in its keywords, which the prompt quotes. */
const keywordsOf = (i: number) => `request-${i}`

const replies: Record<Behaviour, Reply> = {
  "answers": delayed(15, answerRequested),
  "times out": hanging,
  "fails with 503": status(503),
  "answers invalid JSON": answer("{\"title\": \"cut off"),
  "refuses": refusal,
  "rejects with 400": status(400)
}

const seededModel: Reply = (signal, body) => {
  const i = Number(/request-(\d+)/.exec(sentRequest(body).prompt)?.[1] ?? -1)
  return replies[behaviourOf(i)](signal, body)
}

const expectedAnswer = (i: number) =>
  behaviourOf(i) === "answers" ? "200 title,alternativeText,caption,alt_text" : '500 {"error":"Internal Server Error"}'

const seen = ({ status, body }: { readonly status: number; readonly body: unknown }) =>
  status === 200 && typeof body === "object" && body !== null
    ? `200 ${Object.keys(body).join(",")}`
    : `${status} ${JSON.stringify(body)}`

for (const backend of backends) {
  describe(`failures cost nothing, on ${backend.name}`, () => {
    it.scopedLive(`${requests} requests, 30% failing or timing out in the model: credits spent equal the 200s`, () =>
      Effect.gen(function* () {
        const model = yield* fakeOpenAi([seededModel])
        const describer = OpenAiDescriber.layer.pipe(
          Layer.provide(testSettings({ OPENAI_BASE_URL: model.url, MODEL_TIMEOUT_MS: String(modelTimeoutMs) })),
          Layer.orDie
        )
        yield* Effect.gen(function* () {
          const c = yield* customer(requests)
          const answers = yield* Effect.forEach(
            Arr.range(0, requests - 1),
            (i) => postDescribe({ image: jpeg, keywords: keywordsOf(i) }, c.token),
            { concurrency: 32 }
          )
          const mismatches = answers.flatMap((answer, i) =>
            seen(answer) === expectedAnswer(i) ? [] : [{ request: i, model: behaviourOf(i), seen: seen(answer) }]
          )
          expect(mismatches.slice(0, 5)).toEqual([])

          const succeeded = Arr.range(0, requests - 1).filter((i) => behaviourOf(i) === "answers").length
          // The seed gives about 30% failures; each kind of failure occurs.
          expect(succeeded).toBeGreaterThan(650)
          expect(succeeded).toBeLessThan(750)
          expect(new Set(Arr.range(0, requests - 1).map(behaviourOf)).size).toBe(6)

          expect(yield* bookOf(c.accountId)).toEqual({
            credits: requests - succeeded,
            reserved: 0,
            granted: requests,
            charges: succeeded,
            chargedFailures: 0,
            usage: { "charged 200": succeeded, "released 500": requests - succeeded }
          })
        }).pipe(
          Effect.provide(serverWith(servicesOn(backend, describer)).pipe(Layer.orDie)),
          // 300 failures would each log a warning and every request a line: only errors are shown.
          Logger.withMinimumLogLevel(LogLevel.Error)
        )
      }), 120_000)
  })
}
