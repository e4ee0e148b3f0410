/**
 * Spec §4.1 "Order of checks": a request with several faults gets the answer (§7.1) of the first
 * failing check, and no failure moves a credit (§8). Requests go over a raw socket so that a
 * Content-Length can announce a body that never comes.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { GenerationFailed } from "../../src/domain/errors.ts"
import { ApiKeys } from "../../src/services/ApiKeys.ts"
import { Describer } from "../../src/services/Describer.ts"
import { pglite } from "../support/database.ts"
import { customer, jpeg, serverPort } from "../support/describe.ts"
import type { PartSpec } from "../support/multipartBody.ts"
import { multipartBody, multipartContentType } from "../support/multipartBody.ts"
import { requestHead, sendRaw } from "../support/rawHttp.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

/** A fake model: echoes field names, fails when the keywords ask it to. */
const model = Describer.scripted((request) =>
  request.keywords === "model-fails"
    ? Effect.fail(new GenerationFailed({ reason: "failed" }))
    : Effect.succeed(Object.fromEntries(request.fields.map((f) => [f.name, `${f.name} in ${request.language}`])))
)

/** The faults a request can carry, in the order of the checks that catch them (§4.1). */
const faultOrder = [
  "missingKey",
  "badKey",
  "zeroBalance",
  "bigContentLength",
  "notMultipart",
  "noImage",
  "badSchema",
  "badImage",
  "modelFails"
] as const
type Fault = (typeof faultOrder)[number]
type Faults = Readonly<Record<Fault, boolean>>

/** How each fault is carried; several ways where the spec names several (§7.1, §4.1 headers). */
interface Variants {
  readonly missingKey: "absent" | "basic" | "bare"
  readonly badKey: "garbage" | "truncated" | "deleted"
  readonly notMultipart: "json" | "noBoundary"
  /** The order of the form's parts. */
  readonly parts: ReadonlyArray<"image" | "schema" | "keywords">
}

const plain: Variants = { missingKey: "absent", badKey: "garbage", notMultipart: "json", parts: ["image", "schema", "keywords"] }

const none: Faults = Object.fromEntries(faultOrder.map((fault) => [fault, false])) as Record<Fault, boolean>
const withFaults = (...faults: ReadonlyArray<Fault>): Faults => ({ ...none, ...Object.fromEntries(faults.map((f) => [f, true])) })

/** What the client must see for the first fault, and the usage row the request leaves. */
const answers: Readonly<Record<Fault, { readonly status: number; readonly error: string; readonly usage: ReadonlyArray<unknown> }>> = {
  missingKey: { status: 401, error: "Unauthorized, missing Authorization header", usage: [] },
  badKey: { status: 401, error: "Unauthorized, invalid token", usage: [] },
  zeroBalance: { status: 401, error: "Unauthorized, no credit left", usage: [["refused", 401, "NoCreditLeft"]] },
  bigContentLength: { status: 413, error: "Image too large: the maximum is 10 MB", usage: [["released", 413, "RequestTooLarge"]] },
  notMultipart: { status: 400, error: "Bad Request, the body must be multipart/form-data", usage: [["released", 400, "NotMultipart"]] },
  noImage: { status: 400, error: "Bad Request, No file uploaded", usage: [["released", 400, "NoFileUploaded"]] },
  badSchema: { status: 400, error: "Invalid schema: at most 20 fields are allowed", usage: [["released", 400, "InvalidSchema"]] },
  badImage: { status: 400, error: "Bad Request, Invalid image file", usage: [["released", 400, "InvalidImageFile"]] },
  modelFails: { status: 500, error: "Internal Server Error", usage: [["released", 500, "GenerationFailed"]] }
}

const tooManyFields = JSON.stringify(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, "d"])))
const boundary = "describe-order-boundary"
const starting = 2

/** Parsed JSON, or the raw text when the body is not JSON (so a failure shows what came back). */
const jsonOf = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Sends one request carrying `faults` for a new customer; checks the answer and the credits. */
const check = (faults: Faults, variants: Variants = plain) =>
  Effect.gen(function* () {
    const c = yield* customer(faults.zeroBalance ? 0 : starting)
    const port = yield* serverPort

    const deletedKey = Effect.gen(function* () {
      const keys = yield* ApiKeys
      const { key, token } = yield* keys.create(c.accountId, { expiredAt: new Date(Date.now() + 864e5) })
      yield* keys.remove(key.id)
      return token
    }).pipe(Effect.orDie)
    const authorization = faults.missingKey
      ? { absent: undefined, basic: `Basic ${c.token}`, bare: c.token }[variants.missingKey]
      : faults.badKey
      ? `Bearer ${{ garbage: "not-a-key", truncated: c.token.slice(0, -4), deleted: yield* deletedKey }[variants.badKey]}`
      : `Bearer ${c.token}`

    const parts: ReadonlyArray<PartSpec> = variants.parts.flatMap((name): ReadonlyArray<PartSpec> => {
      switch (name) {
        case "image":
          return faults.noImage
            ? []
            : [{ name, filename: "photo.jpg", contentType: "image/jpeg", data: faults.badImage ? "just some text, not a picture" : jpeg }]
        case "schema":
          return faults.badSchema ? [{ name, data: tooManyFields }] : []
        case "keywords":
          return faults.modelFails ? [{ name, data: "model-fails" }] : []
      }
    })
    const form = multipartBody(boundary, parts)
    const [contentType, body] = !faults.notMultipart
      ? [multipartContentType(boundary), form]
      : variants.notMultipart === "json"
      ? ["application/json", new TextEncoder().encode(JSON.stringify({ image: "aGVsbG8=", keywords: "cats" }))]
      : ["multipart/form-data", form]

    const answer = yield* sendRaw({
      port,
      head: requestHead("POST", "/api/describe", {
        ...(authorization === undefined ? {} : { authorization }),
        "content-type": contentType,
        "content-length": String(faults.bigContentLength ? 50 * 1024 * 1024 : body.length)
      }),
      // A 50 MB announcement comes with no body at all: only an early answer can end the exchange.
      body: faults.bigContentLength ? [] : [body],
      timeoutMs: 5_000
    })

    const first = faultOrder.find((fault) => faults[fault])
    const seen = { status: answer.status, contentType: answer.headers["content-type"], body: jsonOf(answer.body) }
    if (first === undefined) {
      expect(seen).toEqual({
        status: 200,
        contentType: "application/json",
        body: { title: "title in en", alternativeText: "alternativeText in en", caption: "caption in en", alt_text: "alternativeText in en" }
      })
      expect(yield* c.balance).toBe(starting - 1)
      expect((yield* c.ledger).map((row) => [row.amount, row.reason])).toEqual([[starting, "purchase"], [-1, "describe"]])
      expect((yield* c.usage).map((u) => [u.state, u.status, u.errorKind])).toEqual([["charged", 200, null]])
    } else {
      const expected = answers[first]
      expect(seen).toEqual({ status: expected.status, contentType: "application/json", body: { error: expected.error } })
      expect(yield* c.balance).toBe(faults.zeroBalance ? 0 : starting)
      expect((yield* c.ledger).length).toBe(faults.zeroBalance ? 0 : 1)
      expect((yield* c.usage).map((u) => [u.state, u.status, u.errorKind])).toEqual(expected.usage)
    }
  })

/**
 * Faults drawn so that every check is the first failing one equally often: the faults before the
 * chosen first one are off, the ones after it are on or off at random.
 */
const faultsArbitrary = fc
  .record({
    first: fc.integer({ min: 0, max: faultOrder.length }),
    rest: fc.array(fc.boolean(), { minLength: faultOrder.length, maxLength: faultOrder.length })
  })
  .map(({ first, rest }): Faults =>
    Object.fromEntries(faultOrder.map((fault, i) => [fault, i === first || (i > first && rest[i] === true)])) as Record<Fault, boolean>
  )

const variantsArbitrary: fc.Arbitrary<Variants> = fc.record({
  missingKey: fc.constantFrom("absent", "basic", "bare"),
  badKey: fc.constantFrom("garbage", "truncated", "deleted"),
  notMultipart: fc.constantFrom("json", "noBoundary"),
  parts: fc.shuffledSubarray(["image", "schema", "keywords"] as const, { minLength: 3, maxLength: 3 })
})

layer(serverWith(servicesOn(pglite, model)), { excludeTestServices: true })("POST /api/describe, order of checks", (it) => {
  it.effect.prop(
    "a request with several faults gets the answer of the first failing check; only a 200 uses a credit",
    { faults: faultsArbitrary, variants: variantsArbitrary },
    ({ faults, variants }) => check(faults, variants),
    { timeout: 120_000, fastCheck: { numRuns: 60 } }
  )

  it.effect("a bad key with a huge Content-Length: 401, not 413", () => check(withFaults("badKey", "bigContentLength")))

  it.effect("a zero balance with no form: 401 no credit left, not 400", () => check(withFaults("zeroBalance", "notMultipart")))

  it.effect("a huge Content-Length with a bad schema: 413, not 400", () => check(withFaults("bigContentLength", "badSchema")))

  it.effect("a bad schema with a bad image: the schema's 400", () => check(withFaults("badSchema", "badImage")))

  it.effect("a bad image for a failing model: 400, the model is never asked", () => check(withFaults("badImage", "modelFails")))

  it.effect("every fault at once: 401 missing Authorization header", () => check(withFaults(...faultOrder)))

  it.effect("no fault: 200, one credit used", () => check(none))

  it.effect("a valid key on a zero balance leaves a refused usage row: 401, NoCreditLeft", () =>
    Effect.gen(function* () {
      const c = yield* customer(0)
      const port = yield* serverPort
      const body = multipartBody(boundary, [{ name: "image", filename: "photo.jpg", data: jpeg }])
      const answer = yield* sendRaw({
        port,
        head: requestHead("POST", "/api/describe", {
          authorization: `Bearer ${c.token}`,
          "content-type": multipartContentType(boundary),
          "content-length": String(body.length)
        }),
        body: [body]
      })
      expect([answer.status, jsonOf(answer.body)]).toEqual([401, { error: "Unauthorized, no credit left" }])
      const usage = yield* c.usage
      expect(usage.map((u) => [u.keyId, u.state, u.status, u.errorKind])).toEqual([[c.keyId, "refused", 401, "NoCreditLeft"]])
      expect(yield* c.balance).toBe(0)
      expect((yield* c.ledger).length).toBe(0)
    }))
})
