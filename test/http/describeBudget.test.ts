/**
 * The upload budget (`UPLOAD_MEMORY_MB`) against one account's uploads: they hold at most that
 * account's share, so another account's upload is answered while they are still open; and a body
 * that waits for room waits at most `UPLOAD_TIMEOUT_MS`, then gets the retryable 500 (§7.3),
 * unread and uncharged.
 */
import { expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { ServicesLive } from "../../src/app.ts"
import { limits } from "../../src/domain/limits.ts"
import { Describer } from "../../src/services/Describer.ts"
import { Images } from "../../src/services/Images.ts"
import { UploadBudget } from "../../src/services/UploadBudget.ts"
import { pgliteWith } from "../support/database.ts"
import { customer, jpeg, serverPort } from "../support/describe.ts"
import { multipartBody, multipartContentType } from "../support/multipartBody.ts"
import { type RawResponse, requestHead, sendRaw } from "../support/rawHttp.ts"
import { preparedCopy } from "../support/describer.ts"
import { serverWith } from "../support/server.ts"

const MB = 1024 * 1024
/** Twice one whole body: an account's share is one whole body (UploadBudget.ts, `shareOf`). */
const budget = 22 * MB
/** Long next to a small upload's answer, even on a loaded machine; every slow one is open meanwhile. */
const uploadTimeoutMs = 8000

const headers = (token: string, length: number) => ({
  authorization: `Bearer ${token}`,
  "content-type": multipartContentType("b"),
  "content-length": String(length)
})

const form = (image: Uint8Array) => multipartBody("b", [{ name: "image", filename: "a.jpg", data: image }])

const seen = (response: RawResponse) => `${response.status} ${response.body} connection: ${response.headers["connection"]}`

it.live("one account's uploads hold at most its share: another account's is answered meanwhile; its own waiting ones get a 500 at the deadline, uncharged", () =>
  Effect.gen(function* () {
    const image = yield* preparedCopy(jpeg).pipe(Effect.provide(Images.layer), Effect.orDie)
    // The largest image holds its body's bytes from the budget while it is prepared, until the test
    // lets it go: as long as a slow upload would hold them.
    const preparing = yield* Deferred.make<void>()
    const letGo = yield* Deferred.make<void>()
    const images = Images.scripted((bytes) =>
      bytes.length < limits.imageBytes
        ? Effect.succeed(image)
        : Deferred.succeed(preparing, undefined).pipe(Effect.zipRight(Deferred.await(letGo)), Effect.as(image))
    )
    const config = pgliteWith({ UPLOAD_MEMORY_MB: String(budget / MB), UPLOAD_TIMEOUT_MS: String(uploadTimeoutMs) })
    const services = Layer.mergeAll(ServicesLive, images, UploadBudget.layer, Describer.echo).pipe(Layer.provideMerge(config.layer))

    yield* Effect.gen(function* () {
      const port = yield* serverPort
      const slow = yield* customer(3)
      const other = yield* customer(1)
      const raw = (token: string, length: number, body: ReadonlyArray<Uint8Array>) =>
        sendRaw({ port, head: requestHead("POST", "/api/describe", headers(token, length)), body, timeoutMs: 3 * uploadTimeoutMs })

      const large = form(new Uint8Array(limits.imageBytes).fill(0x61))
      const holder = yield* Effect.fork(raw(slow.token, large.length, [large]))
      yield* Deferred.await(preparing)
      // Two more of the account's, announced and never sent: on their own, with the first, they
      // would take the whole budget.
      const lengths = [11_000_000, budget - large.length - 11_000_000]
      const waiting = yield* Effect.forEach(lengths, (length) => Effect.fork(raw(slow.token, length, [])))
      // Time for them to reach the budget (on the old code, to fill it).
      yield* Effect.sleep("1500 millis")

      const small = form(jpeg)
      const answer = yield* raw(other.token, small.length, [small])
      const stillOpen = (yield* Effect.forEach(waiting, Fiber.poll)).filter((poll) => poll._tag === "None").length
      expect({ status: answer.status, stillOpen }).toEqual({ status: 200, stillOpen: waiting.length })

      const answers = yield* Effect.forEach(waiting, Fiber.join)
      expect(answers.map(seen)).toEqual(waiting.map(() => '500 {"error":"Internal Server Error"} connection: close'))
      yield* Deferred.succeed(letGo, undefined)
      expect((yield* Fiber.join(holder)).status).toBe(200)

      expect((yield* slow.usage).map((u) => [u.state, u.status, u.errorKind]).sort()).toEqual([
        ["charged", 200, null],
        ["released", 500, "UploadBudgetTimedOut"],
        ["released", 500, "UploadBudgetTimedOut"]
      ])
      expect(yield* slow.balance).toBe(2)
      expect(yield* other.balance).toBe(0)
    }).pipe(Effect.provide(serverWith(services)))
  }), 60_000)
