import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, Layer, Schedule } from "effect"
import * as Database from "../../src/db/Database.ts"
import { jpeg } from "../support/describe.ts"
import { answerRequested, delayed, eventually, fakeOpenAi } from "../support/fakeOpenAi.ts"
import * as fs from "node:fs"
import * as path from "node:path"
import { cliOk, freePort, getTokens, startService, tempDataDir } from "../support/process.ts"

const timeout = 90_000

/** An account with 2 credits and a key, made with the operator CLI. */
const accountWithKey = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const account = JSON.parse(yield* cliOk(env, "account", "create", "--name", "Shop", "--credits", "2")) as { id: string }
    const key = JSON.parse(yield* cliOk(env, "key", "create", account.id)) as { key: string }
    return key.key
  })

const describeUpload = (url: string, key: string) =>
  Effect.promise(async () => {
    const form = new FormData()
    form.append("image", new Blob([jpeg]), "photo.jpg")
    try {
      const response = await fetch(`${url}/api/describe`, { method: "POST", body: form, headers: { authorization: `Bearer ${key}` } })
      return response.status === 200 ? { status: response.status } : { status: response.status, body: await response.text() }
    } catch {
      return { status: "connection closed" as const }
    }
  })

const creditsOf = (url: string, key: string) =>
  getTokens(url, key).pipe(Effect.map(({ body }) => (body as { user: { credits: number } }).user.credits))

describe("graceful shutdown on SIGTERM", () => {
  it.scopedLive("a request in flight finishes and is charged; the process then exits cleanly", () =>
    Effect.gen(function* () {
      const model = yield* fakeOpenAi([delayed(1500, answerRequested)])
      const env = { DATA_DIR: yield* tempDataDir, OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "test", SHUTDOWN_TIMEOUT_MS: "20000" }
      const service = yield* startService(env)
      const key = yield* accountWithKey(env)
      const request = yield* Effect.fork(describeUpload(service.url, key))
      yield* eventually(() => model.received.length === 1)
      const ended = yield* service.stop("SIGTERM")
      expect(yield* Fiber.join(request)).toEqual({ status: 200 })
      expect(ended.exitCode).toBe(0)
      const again = yield* startService(env)
      expect(yield* creditsOf(again.url, key)).toBe(1)
    }), timeout)

  it.scopedLive("`npm start` stopped with SIGTERM (a supervisor signalling its main pid) stops the service, which lets the folder go", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      const port = yield* freePort
      const npm = Bun.spawn({
        cmd: ["npm", "start"],
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" },
        stdio: ["ignore", "ignore", "ignore"]
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => npm.kill("SIGKILL")))
      const url = `http://127.0.0.1:${port}`
      yield* Effect.tryPromise(() => fetch(`${url}/healthz`)).pipe(Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("60 seconds"))))
      // Should it outlive npm (the failure this guards against), it does not outlive the test.
      const service = (JSON.parse(fs.readFileSync(path.join(dataDir, "lock.json"), "utf8")) as { pid: number }).pid
      yield* Effect.addFinalizer(() => Effect.sync(() => { try { process.kill(service, "SIGKILL") } catch { /* ended */ } }))
      npm.kill("SIGTERM")
      yield* Effect.promise(() => npm.exited)
      // The service itself has ended: nothing answers, and its lock.json is gone (removed on a clean exit).
      yield* Effect.flip(Effect.tryPromise(() => fetch(`${url}/healthz`))).pipe(
        Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("30 seconds")))
      )
      yield* Effect.suspend(() => (fs.existsSync(path.join(dataDir, "lock.json")) ? Effect.fail("still held") : Effect.void)).pipe(
        Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("30 seconds")))
      )
    }), timeout)

  it.scopedLive("a burst taken just before SIGTERM, most of it still waiting in line, is answered whole before the process exits", () =>
    Effect.gen(function* () {
      const service = yield* startService({ DATA_DIR: yield* tempDataDir })
      let received = 0
      const requests = Array.from({ length: 200 }, () =>
        fetch(`${service.url}/api/tokens`).then(
          (response) => response.status,
          (error: { code?: string }) => error.code ?? "failed"
        ).finally(() => received++))
      // Signalled as the first answers come back: every connection is open, most requests wait their turn.
      yield* Effect.promise(() => Promise.race(requests))
      const unansweredAtSignal = 200 - received
      const ended = yield* service.stop("SIGTERM")
      const statuses = yield* Effect.promise(() => Promise.all(requests))
      expect(unansweredAtSignal).toBeGreaterThan(100)
      expect(statuses.filter((status) => status !== 401)).toStrictEqual([])
      expect(ended.exitCode).toBe(0)
    }), timeout)

  it.scopedLive("past the deadline the request is stopped, answered 500 (retryable), and its credit released", () =>
    Effect.gen(function* () {
      const model = yield* fakeOpenAi([delayed(10_000, answerRequested)])
      const env = { DATA_DIR: yield* tempDataDir, OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "test", SHUTDOWN_TIMEOUT_MS: "300" }
      const service = yield* startService(env)
      const key = yield* accountWithKey(env)
      const request = yield* Effect.fork(describeUpload(service.url, key))
      yield* eventually(() => model.received.length === 1)
      const ended = yield* service.stop("SIGTERM")
      // §7.1's retryable error, as JSON, and the log line says what the client got.
      expect(yield* Fiber.join(request)).toEqual({ status: 500, body: JSON.stringify({ error: "Internal Server Error" }) })
      expect(ended.stdout).toMatch(/"route":"\/api\/describe"[^\n]*"status":500|"status":500[^\n]*"route":"\/api\/describe"/)
      // The usage history says the same: stopped by the service, not the client's going away.
      const usage = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT state, status, error_kind FROM usage`).pipe(
        Effect.provide(Database.layerPglite(env.DATA_DIR, "cli").pipe(Layer.orDie)),
        Effect.orDie
      )
      expect(usage).toEqual([{ state: "released", status: 500, errorKind: "Stopped" }])
      const again = yield* startService(env)
      expect(yield* creditsOf(again.url, key)).toBe(2)
    }), timeout)
})
