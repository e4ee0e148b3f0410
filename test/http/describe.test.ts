import { describe, expect, it, layer } from "@effect/vitest"
import { Deferred, Effect, Layer, Ref } from "effect"
import { AnswerTooLong, GenerationFailed } from "../../src/domain/errors.ts"
import { ServicesLive } from "../../src/app.ts"
import { ApiKeys } from "../../src/services/ApiKeys.ts"
import { Describer } from "../../src/services/Describer.ts"
import { Images } from "../../src/services/Images.ts"
import { UploadBudget } from "../../src/services/UploadBudget.ts"
import { backends, pglite, pgliteWith, postgresSkipReason, postgresUrl } from "../support/database.ts"
import { customer, error, jpeg, png, postDescribe, serverPort } from "../support/describe.ts"
import { multipartBody, multipartContentType } from "../support/multipartBody.ts"
import { requestHead, sendRaw } from "../support/rawHttp.ts"
import { forgeKey } from "../support/keys.ts"
import { preparedCopy } from "../support/describer.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

/** A fake model: echoes field names, fails on request through the keywords. */
const model = Describer.scripted((request) => {
  if (request.keywords === "model-fails") return Effect.fail(new GenerationFailed({ reason: "failed" }))
  if (request.keywords === "too-long") return Effect.fail(new AnswerTooLong())
  return Effect.succeed(Object.fromEntries(request.fields.map((f) => [f.name, `${f.name} in ${request.language}`])))
})

/** A describe of `jpeg` by a raw client that goes away (closing its socket) once `moment` comes. */
const describeUntil = (token: string, moment: Deferred.Deferred<void>) =>
  Effect.gen(function* () {
    const body = multipartBody("b", [{ name: "image", filename: "a.jpg", data: jpeg }])
    const request = sendRaw({
      port: yield* serverPort,
      head: requestHead("POST", "/api/describe", {
        authorization: `Bearer ${token}`, "content-type": multipartContentType("b"), "content-length": String(body.length)
      }),
      body: [body]
    })
    // Interrupting the client closes its socket.
    yield* Effect.raceFirst(request, Deferred.await(moment))
  })

layer(serverWith(servicesOn(pglite, model)), { excludeTestServices: true })("POST /api/describe", (it) => {
  it.effect("200 with title, alternativeText, caption and alt_text, using exactly one credit", () =>
    Effect.gen(function* () {
      const c = yield* customer(3)
      const answer = yield* postDescribe({ image: jpeg }, c.token)
      expect(answer).toEqual({
        status: 200,
        contentType: "application/json",
        body: { title: "title in en", alternativeText: "alternativeText in en", caption: "caption in en", alt_text: "alternativeText in en" }
      })
      expect(Object.keys(answer.body as object)).toEqual(["title", "alternativeText", "caption", "alt_text"])
      expect(yield* c.balance).toBe(2)
      const ledger = yield* c.ledger
      expect(ledger.map((row) => [row.amount, row.reason])).toEqual([[3, "purchase"], [-1, "describe"]])
      expect((yield* c.usage).map((u) => [u.state, u.status, u.errorKind])).toEqual([["charged", 200, null]])
    }))

  it.effect("with a schema: exactly its keys, in its order, no alt_text, in the requested language", () =>
    Effect.gen(function* () {
      const c = yield* customer(1)
      const answer = yield* postDescribe(
        { image: png, schema: '{"seoTitle":"SEO title","constructor":"c","tags":"Tags"}', language: "pt-BR" },
        c.token
      )
      expect(answer.status).toBe(200)
      expect(Object.entries(answer.body as object)).toEqual([
        ["seoTitle", "seoTitle in pt-BR"], ["constructor", "constructor in pt-BR"], ["tags", "tags in pt-BR"]
      ])
      expect(yield* c.balance).toBe(0)
    }))

  const refused = (form: Parameters<typeof postDescribe>[0], expected: ReturnType<typeof error>, credits = 2) =>
    Effect.gen(function* () {
      const c = yield* customer(credits)
      expect(yield* postDescribe(form, c.token)).toEqual(expected)
      expect(yield* c.balance).toBe(credits)
      expect((yield* c.ledger).length).toBe(credits > 0 ? 1 : 0)
    })

  it.effect("401 without a Bearer key, even without an image", () =>
    Effect.gen(function* () {
      expect(yield* postDescribe({})).toEqual(error(401, "Unauthorized, missing Authorization header"))
    }))

  it.effect("401 for a truncated, deleted or account-less key, even without an image", () =>
    Effect.gen(function* () {
      const c = yield* customer(2)
      expect(yield* postDescribe({}, c.token.slice(0, -4))).toEqual(error(401, "Unauthorized, invalid token"))
      expect(yield* postDescribe({}, "not-a-key")).toEqual(error(401, "Unauthorized, invalid token"))
    }))

  it.effect("401 `Unauthorized, invalid token` for a key signed with the secret but without an expiry, or whose row has expired", () =>
    Effect.gen(function* () {
      const c = yield* customer(2)
      const forever = yield* forgeKey({ userId: c.accountId, jti: c.keyId })
      expect(yield* postDescribe({ image: jpeg }, forever)).toEqual(error(401, "Unauthorized, invalid token"))
      const expired = yield* Effect.flatMap(ApiKeys, (k) => k.create(c.accountId, { expiredAt: new Date(Date.now() - 1000) }))
      const revived = yield* forgeKey({ userId: c.accountId, jti: expired.key.id, expiresAt: new Date(Date.now() + 3_600_000) })
      expect(yield* postDescribe({ image: jpeg }, revived)).toEqual(error(401, "Unauthorized, invalid token"))
      expect(yield* c.balance).toBe(2)
    }))

  it.effect("401 `no credit left` on an empty balance, even with a bad form", () => refused({}, error(401, "Unauthorized, no credit left"), 0))

  it.effect("400 for a body that is not a multipart form", () =>
    Effect.gen(function* () {
      const c = yield* customer(1)
      const port = yield* serverPort
      const cases = [
        { "content-type": "application/json", body: '{"image":"x"}' },
        { "content-type": "multipart/form-data", body: "--x\r\n" },
        { "content-type": "multipart/form-data; boundary=x", body: "" }
      ]
      for (const { body, ...headers } of cases) {
        const answer = yield* sendRaw({
          port,
          head: requestHead("POST", "/api/describe", { ...headers, authorization: `Bearer ${c.token}`, "content-length": String(body.length) }),
          body: [body]
        })
        expect([answer.status, JSON.parse(answer.body)]).toEqual([400, { error: "Bad Request, the body must be multipart/form-data" }])
      }
      expect(yield* c.balance).toBe(1)
    }))

  it.effect("400 `No file uploaded` without an image field", () =>
    refused({ keywords: "a", schema: "{}" }, error(400, "Bad Request, No file uploaded")))

  it.effect("400 `No file uploaded` for an image part of no bytes (a browser's empty file input)", () =>
    refused({ image: new Uint8Array(0), keywords: "a" }, error(400, "Bad Request, No file uploaded")))

  it.effect("a blank schema field (a browser's empty text input) is no schema: the default fields, alt_text included", () =>
    Effect.gen(function* () {
      const c = yield* customer(2)
      for (const schema of ["", "  \r\n "]) {
        expect(yield* postDescribe({ image: jpeg, schema }, c.token)).toEqual({
          status: 200,
          contentType: "application/json",
          body: { title: "title in en", alternativeText: "alternativeText in en", caption: "caption in en", alt_text: "alternativeText in en" }
        })
      }
      expect(yield* c.balance).toBe(0)
    }))

  it.effect("400 for a language over 64 characters", () =>
    refused({ image: jpeg, language: "x".repeat(65) }, error(400, "Bad Request, language must be at most 64 characters")))

  it.effect("400 for each schema rule, before the image is looked at", () =>
    Effect.gen(function* () {
      const fields = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, "d"])))
      yield* refused({ image: "not an image", schema: fields(21) }, error(400, "Invalid schema: at most 20 fields are allowed"))
      yield* refused({ image: jpeg, schema: `{"${"n".repeat(65)}":"d"}` }, error(400, "Invalid schema: field names must be at most 64 characters"))
      yield* refused({ image: jpeg, schema: `{"alt":"${"d".repeat(1001)}"}` }, error(400, "Invalid schema: field descriptions must be at most 1000 characters"))
      yield* refused({ image: jpeg, schema: '{"__proto__":"x"}' }, error(400, 'Invalid schema: "__proto__" is not allowed as a field name'))
      yield* refused({ image: jpeg, schema: "[1]" }, error(400, "Invalid schema: the schema must be a JSON object of field names and descriptions"))
    }))

  it.effect("400 `Invalid image file` for content that is not JPEG, PNG, WebP or GIF", () =>
    Effect.gen(function* () {
      yield* refused({ image: "just some text renamed photo.jpg" }, error(400, "Bad Request, Invalid image file"))
      yield* refused({ image: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>' }, error(400, "Bad Request, Invalid image file"))
    }))

  it.effect("500 `Image processing failed: <cause>` for a truncated PNG, uncharged", () =>
    Effect.gen(function* () {
      const c = yield* customer(1)
      const answer = yield* postDescribe({ image: png.slice(0, png.length - 30) }, c.token)
      expect(answer.status).toBe(500)
      expect((answer.body as { error: string }).error).toMatch(/^Image processing failed: .+/)
      expect(yield* c.balance).toBe(1)
    }))

  it.effect("413 for an image over 10 MB inside a body under 11 MB", () =>
    Effect.gen(function* () {
      const big = new Uint8Array(10 * 1024 * 1024 + 100)
      big.set(jpeg)
      yield* refused({ image: big }, error(413, "Image too large: the maximum is 10 MB"))
    }))

  it.effect("500 `Internal Server Error` when the model fails, uncharged; retrying works", () =>
    Effect.gen(function* () {
      const c = yield* customer(1)
      expect(yield* postDescribe({ image: jpeg, keywords: "model-fails" }, c.token)).toEqual(error(500, "Internal Server Error"))
      expect(yield* c.balance).toBe(1)
      expect((yield* postDescribe({ image: jpeg }, c.token)).status).toBe(200)
      expect(yield* c.balance).toBe(0)
      const usage = (yield* c.usage).map((u) => [u.state, u.status, u.errorKind]).sort()
      expect(usage).toEqual([["charged", 200, null], ["released", 500, "GenerationFailed"]])
    }))

  it.effect("400 when the answer to a schema would be too long, uncharged", () =>
    refused(
      { image: jpeg, keywords: "too-long", schema: JSON.stringify({ story: "The whole story" }) },
      error(400, "Invalid schema: the requested fields need a longer answer than the API can return (about 1,500 words for all fields together), ask for fewer or shorter fields")
    ))

  it.effect("500 when the answer to the default fields would be too long (no schema asked for it), uncharged", () =>
    refused({ image: jpeg, keywords: "too-long" }, error(500, "Internal Server Error")))

  it.effect("413 before reading: a request announcing 50 MB is answered without a byte of its body", () =>
    Effect.gen(function* () {
      const c = yield* customer(1)
      const port = yield* serverPort
      const answer = yield* sendRaw({
        port,
        head: requestHead("POST", "/api/describe", {
          authorization: `Bearer ${c.token}`,
          "content-type": "multipart/form-data; boundary=x",
          "content-length": String(50 * 1024 * 1024)
        }),
        body: []
      })
      expect([answer.status, JSON.parse(answer.body), answer.headers["connection"]]).toEqual([
        413, { error: "Image too large: the maximum is 10 MB" }, "close"
      ])
      expect(answer.bytesWritten).toBe(0)
      expect(yield* c.balance).toBe(1)
    }))

  it.effect("413 for a chunked body that passes 11 MB without announcing its length", () =>
    Effect.gen(function* () {
      const c = yield* customer(1)
      const port = yield* serverPort
      const chunk = new Uint8Array(1024 * 1024)
      const answer = yield* sendRaw({
        port,
        head: requestHead("POST", "/api/describe", {
          authorization: `Bearer ${c.token}`,
          "content-type": "multipart/form-data; boundary=x",
          "transfer-encoding": "chunked"
        }),
        body: Array.from({ length: 14 }, () => chunk),
        chunked: true,
        finish: false
      })
      expect([answer.status, JSON.parse(answer.body)]).toEqual([413, { error: "Image too large: the maximum is 10 MB" }])
      expect(yield* c.balance).toBe(1)
    }))

  it.effect("a wrong key gets 401 even when it announces a huge body", () =>
    Effect.gen(function* () {
      const port = yield* serverPort
      const answer = yield* sendRaw({
        port,
        head: requestHead("POST", "/api/describe", { authorization: "Bearer nope", "content-length": String(500 * 1024 * 1024) }),
        body: []
      })
      expect([answer.status, JSON.parse(answer.body), answer.bytesWritten, answer.headers["connection"]]).toEqual([401, { error: "Unauthorized, invalid token" }, 0, "close"])
    }))
})

describe("POST /api/describe, a client that stalls", () => {
  it.live("a body not received within the upload deadline gets 500 (retryable: the form may be valid, on a slow link) and the connection closed, uncharged", () =>
    Effect.gen(function* () {
      const c = yield* customer(1)
      const port = yield* serverPort
      const body = multipartBody("b", [{ name: "image", filename: "a.jpg", data: jpeg }])
      const answer = yield* sendRaw({
        port,
        head: requestHead("POST", "/api/describe", {
          authorization: `Bearer ${c.token}`, "content-type": multipartContentType("b"), "content-length": String(body.length)
        }),
        // Half the body, then silence.
        body: [body.slice(0, body.length / 2)]
      })
      expect([answer.status, JSON.parse(answer.body), answer.headers["connection"]]).toEqual([
        500, { error: "Internal Server Error" }, "close"
      ])
      expect(yield* c.balance).toBe(1)
      expect((yield* c.usage).map((u) => [u.state, u.status, u.errorKind])).toEqual([["released", 500, "UploadTimedOut"]])
    }).pipe(Effect.provide(serverWith(servicesOn(pgliteWith({ UPLOAD_TIMEOUT_MS: "300" }), model)))), 30_000)
})

describe("POST /api/describe, a client that goes away", () => {
  it.live("disconnecting mid-generation interrupts the model and charges nothing", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const hanging = Describer.scripted(() =>
        Deferred.succeed(started, undefined).pipe(Effect.zipRight(Effect.never), Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)))
      )
      yield* Effect.gen(function* () {
        const c = yield* customer(1)
        yield* describeUntil(c.token, started)
        yield* Deferred.await(interrupted)
        // The release is recorded just after the interruption.
        yield* Effect.sleep("200 millis")
        expect(yield* c.balance).toBe(1)
        expect((yield* c.usage).map((u) => [u.state, u.status, u.errorKind])).toEqual([["released", 499, "ClientClosedRequest"]])
      }).pipe(Effect.provide(serverWith(servicesOn(pglite, hanging))))
    }), 30_000)

  it.live("a model answering after 40 s still reaches a client that waits", () =>
    Effect.gen(function* () {
      const slow = Describer.scripted((request) =>
        Effect.sleep("40 seconds").pipe(Effect.as(Object.fromEntries(request.fields.map((f) => [f.name, "late"])))))
      yield* Effect.gen(function* () {
        const c = yield* customer(1)
        const answer = yield* postDescribe({ image: jpeg }, c.token)
        expect(answer.status).toBe(200)
        expect(yield* c.balance).toBe(0)
      }).pipe(Effect.provide(serverWith(servicesOn(pglite, slow))))
    }), 60_000)
})

describe("POST /api/describe, pixels while the model works", () => {
  it.live("the describer starts on the pixels; they are released before the model's part runs, and when the start fails", () =>
    Effect.gen(function* () {
      const image = yield* preparedCopy(jpeg).pipe(Effect.provide(Images.layer), Effect.orDie)
      const pixelsAtStart: Array<number> = []
      const pixelsAtModel: Array<number> = []
      const started: Array<Uint8Array> = []
      // The generation cannot be handed the pixels (Describer.make): it looks them up by the start's index.
      const twoSteps = Layer.succeed(Describer, Describer.make("two steps", {
        start: (request) =>
          Effect.gen(function* () {
            started.push(request.image.pixels)
            pixelsAtStart.push(request.image.pixels.byteLength)
            if (request.keywords === "start-fails") return yield* new GenerationFailed({ reason: "failed" })
            return { fields: request.fields, startIndex: started.length - 1 }
          }),
        generate: ({ fields, startIndex }) =>
          Effect.sync(() => {
            pixelsAtModel.push(started[startIndex]?.byteLength ?? -1)
            return Object.fromEntries(fields.map((f) => [f.name, "ok"]))
          })
      }))
      yield* Effect.gen(function* () {
        const c = yield* customer(2)
        expect((yield* postDescribe({ image: jpeg }, c.token)).status).toBe(200)
        expect(yield* postDescribe({ image: jpeg, keywords: "start-fails" }, c.token)).toEqual(error(500, "Internal Server Error"))
        const size = image.width * image.height * image.channels
        expect(pixelsAtStart).toEqual([size, size])
        expect(pixelsAtModel).toEqual([0])
        expect(started.map((pixels) => pixels.byteLength)).toEqual([0, 0])
        expect(yield* c.balance).toBe(1)
      }).pipe(Effect.provide(serverWith(servicesOn(pglite, twoSteps))))
    }), 30_000)
})

describe("POST /api/describe, pixels while the client goes away", () => {
  it.live("a client that disconnects while the describer starts: the start finishes on whole pixels, then they go; nothing charged", () =>
    Effect.gen(function* () {
      const entered = yield* Deferred.make<void>()
      const pixelsAtEndOfStart: Array<number> = []
      const slowStart = Layer.succeed(Describer, Describer.make("slow start", {
        start: (request) =>
          Deferred.succeed(entered, undefined).pipe(
            // Like libvips encoding the JPEG: work in flight that nothing can stop.
            Effect.zipRight(Effect.promise(() => Bun.sleep(300))),
            Effect.zipRight(Effect.sync(() => pixelsAtEndOfStart.push(request.image.pixels.byteLength)))
          ),
        generate: () => Effect.never
      }))
      yield* Effect.gen(function* () {
        const c = yield* customer(1)
        yield* describeUntil(c.token, entered)
        yield* Effect.sleep("800 millis")
        expect(pixelsAtEndOfStart.length).toBe(1)
        expect(pixelsAtEndOfStart[0]).toBeGreaterThan(0)
        expect(yield* c.balance).toBe(1)
        expect((yield* c.usage).map((u) => [u.state, u.status])).toEqual([["released", 499]])
      }).pipe(Effect.provide(serverWith(servicesOn(pglite, slowStart))))
    }), 30_000)
})

describe("POST /api/describe, UPLOAD_MEMORY_MB", () => {
  it.live("an upload's body is freed once its image is prepared, before the model is called", () =>
    Effect.gen(function* () {
      const image = yield* preparedCopy(jpeg).pipe(Effect.provide(Images.layer), Effect.orDie)
      const received: Array<Uint8Array> = []
      const lengthsAtPrepare: Array<number> = []
      const bodyLengthsAtModel: Array<number> = []
      const recording = Images.scripted((bytes) =>
        Effect.sync(() => (received.push(bytes), lengthsAtPrepare.push(bytes.byteLength))).pipe(Effect.as(image))
      )
      const checking = Describer.scripted((request) =>
        Effect.sync(() => bodyLengthsAtModel.push(...received.map((bytes) => bytes.byteLength))).pipe(
          Effect.as(Object.fromEntries(request.fields.map((f) => [f.name, "ok"])))
        ))
      const services = Layer.mergeAll(ServicesLive, recording, UploadBudget.layer, checking).pipe(Layer.provideMerge(pglite.layer))
      yield* Effect.gen(function* () {
        const c = yield* customer(1)
        const upload = new Uint8Array(2_000_000).fill(0x62)
        expect((yield* postDescribe({ image: upload }, c.token)).status).toBe(200)
        // The prepare step saw the whole upload; by the model call, its buffer was detached.
        expect(lengthsAtPrepare).toEqual([upload.length])
        expect(bodyLengthsAtModel).toEqual([0])
      }).pipe(Effect.provide(serverWith(services)))
    }), 30_000)

  it.live("bounds the bodies held at once: 6 uploads of 4 MB within 11 MiB are prepared two at a time, all answered", () =>
    Effect.gen(function* () {
      const inFlight = yield* Ref.make(0)
      const most = yield* Ref.make(0)
      const image = yield* preparedCopy(jpeg).pipe(Effect.provide(Images.layer), Effect.orDie)
      const counting = Images.scripted(() =>
        Ref.updateAndGet(inFlight, (n) => n + 1).pipe(
          Effect.flatMap((n) => Ref.update(most, (m) => Math.max(m, n))),
          Effect.zipRight(Effect.sleep("150 millis")),
          Effect.ensuring(Ref.update(inFlight, (n) => n - 1)),
          Effect.as(image)
        ))
      const services = Layer.mergeAll(ServicesLive, counting, UploadBudget.layer, model).pipe(
        Layer.provideMerge(pgliteWith({ UPLOAD_MEMORY_MB: "11" }).layer)
      )
      yield* Effect.gen(function* () {
        const c = yield* customer(6)
        const upload = new Uint8Array(4_000_000).fill(0x61)
        const answers = yield* Effect.all(Array.from({ length: 6 }, () => postDescribe({ image: upload }, c.token)), {
          concurrency: "unbounded"
        })
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200])
        expect(yield* Ref.get(most)).toBe(2)
        expect(yield* c.balance).toBe(0)
      }).pipe(Effect.provide(serverWith(services)))
    }), 30_000)
})

for (const backend of backends) {
  describe(`POST /api/describe under concurrency on ${backend.name}`, () => {
    it.live("50 concurrent requests on 10 credits: exactly 10 succeed, 40 have no credit left, the balance is 0", () =>
      Effect.gen(function* () {
        const counter = yield* Ref.make(0)
        const jittery = Describer.scripted((request) =>
          Ref.updateAndGet(counter, (n) => n + 1).pipe(
            Effect.flatMap((n) => Effect.sleep(`${(n * 7) % 25} millis`)),
            Effect.as(Object.fromEntries(request.fields.map((f) => [f.name, "ok"])))
          ))
        yield* Effect.gen(function* () {
          const c = yield* customer(10)
          const answers = yield* Effect.all(Array.from({ length: 50 }, () => postDescribe({ image: jpeg }, c.token)), {
            concurrency: "unbounded"
          })
          expect(answers.filter((a) => a.status === 200)).toHaveLength(10)
          expect(answers.filter((a) => a.status !== 200)).toEqual(Array.from({ length: 40 }, () => error(401, "Unauthorized, no credit left")))
          expect(yield* c.balance).toBe(0)
          expect((yield* c.ledger).filter((row) => row.amount === -1)).toHaveLength(10)
        }).pipe(Effect.provide(serverWith(servicesOn(backend, jittery)).pipe(Layer.orDie)))
      }), 60_000)
  })
}

if (!postgresUrl) describe.skip(postgresSkipReason, () => it("POST /api/describe under concurrency on PostgreSQL", () => {}))
