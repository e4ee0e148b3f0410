/**
 * Reliability (spec §1, §4.1): 200 concurrent valid requests against a balance of 50, the model
 * answering after a random delay. Exactly 50 succeed and are charged, the other 150 are refused
 * with `no credit left`, the balance ends at 0 and never below, in one process on PGlite or
 * PostgreSQL and in two processes sharing one PostgreSQL database.
 */
import { describe, expect, it } from "@effect/vitest"
import { Array as Arr, Effect, Layer, Logger, LogLevel, Ref } from "effect"
import { Describer } from "../../src/services/Describer.ts"
import { backends, postgresSkipReason, postgresUrl } from "../support/database.ts"
import { customer, jpeg, postDescribe } from "../support/describe.ts"
import { answerRequested, delayed, fakeOpenAi, type Reply } from "../support/fakeOpenAi.ts"
import { type Answer, bookOf, describeAt, inStore, postgresStore, tokensAt } from "../support/liveService.ts"
import { startService } from "../support/process.ts"
import { seededAt } from "../support/seeded.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const requests = 200
const balance = 50
const seed = 6001
/** The model's delay is drawn in [0, maxLatencyMs). */
const maxLatencyMs = 40

/** The answers counted by what the client saw: `200 <keys>` for results, `<status> <body>` otherwise. */
const tally = (answers: ReadonlyArray<Answer>) => {
  const counts: Record<string, number> = {}
  for (const { status, body } of answers) {
    const seen = status === 200 && typeof body === "object" && body !== null
      ? `200 ${Object.keys(body).join(",")}`
      : `${status} ${JSON.stringify(body)}`
    counts[seen] = (counts[seen] ?? 0) + 1
  }
  return counts
}

const expectedTally = {
  "200 title,alternativeText,caption,alt_text": balance,
  '401 {"error":"Unauthorized, no credit left"}': requests - balance
}

const expectedBook = {
  credits: 0,
  reserved: 0,
  granted: balance,
  charges: balance,
  chargedFailures: 0,
  usage: { "charged 200": balance, "refused 401": requests - balance }
}

/** A fake model in-process: every field answered after a seeded random delay. */
const jitteryModel = Effect.map(Ref.make(0), (calls) =>
  Describer.scripted((request) =>
    Ref.getAndUpdate(calls, (n) => n + 1).pipe(
      Effect.flatMap((n) => Effect.sleep(`${Math.floor(seededAt(seed, n) * maxLatencyMs)} millis`)),
      Effect.as(Object.fromEntries(request.fields.map((field) => [field.name, `${field.name} text`])))
    )
  ))

for (const backend of backends) {
  describe(`draining a balance in one process on ${backend.name}`, () => {
    it.live(`${requests} concurrent requests on ${balance} credits: exactly ${balance} succeed and are charged, the rest have no credit left`, () =>
      Effect.gen(function* () {
        const model = yield* jitteryModel
        yield* Effect.gen(function* () {
          const c = yield* customer(balance)
          const answers = yield* Effect.all(Arr.makeBy(requests, () => postDescribe({ image: jpeg }, c.token)), {
            concurrency: "unbounded"
          })
          expect(tally(answers)).toEqual(expectedTally)
          expect(yield* bookOf(c.accountId)).toEqual(expectedBook)
        }).pipe(
          Effect.provide(serverWith(servicesOn(backend, model)).pipe(Layer.orDie)),
          // One log line per request would bury the report.
          Logger.withMinimumLogLevel(LogLevel.Warning)
        )
      }), 60_000)
  })
}

if (postgresUrl) {
  const serverUrl = postgresUrl
  describe("draining a balance from two service processes sharing PostgreSQL", () => {
    it.scopedLive(`${requests} concurrent requests spread over both on ${balance} credits: exactly ${balance} succeed, balance 0`, () =>
      Effect.gen(function* () {
        const store = yield* postgresStore(serverUrl)
        let calls = 0
        const jittery: Reply = (signal, body) => delayed(Math.floor(seededAt(seed, calls++) * maxLatencyMs), answerRequested)(signal, body)
        const model = yield* fakeOpenAi([jittery])
        const c = yield* inStore(store)(customer(balance))
        // Started together: they also race on the migrations and on the signing secret.
        const env = { ...store.env, OPENAI_BASE_URL: model.url }
        const services = yield* Effect.all([startService(env), startService(env)], { concurrency: 2 })

        const answers = yield* Effect.all(
          Arr.makeBy(requests, (i) => describeAt(services[i % 2]!.url, c.token, { image: jpeg })),
          { concurrency: "unbounded" }
        )
        expect(tally(answers)).toEqual(expectedTally)
        expect(yield* inStore(store)(bookOf(c.accountId))).toEqual(expectedBook)
        for (const service of services) {
          expect(yield* tokensAt(service.url, c.token)).toMatchObject({ status: 200, body: { user: { credits: 0 } } })
        }
      }), 120_000)
  })
} else {
  describe.skip(postgresSkipReason, () => it("draining a balance from two service processes sharing PostgreSQL", () => {}))
}
