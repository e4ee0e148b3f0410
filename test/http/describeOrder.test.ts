/**
 * Spec §4.1 "Order of checks": a request with several faults gets the answer (§7.1) of the first
 * failing check, and no failure moves a credit (§8). Every failure of the table of checks
 * (src/domain/describeChecks.ts) has a fault here that makes a request fail with it. Requests go
 * over a raw socket so that a Content-Length can announce a body that never comes, and a body can
 * be chunked or stall.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, FastCheck as fc, Layer } from "effect"
import { SignJWT } from "jose"
import sharp from "sharp"
import { describeChecks, type DescribeErrorTag } from "../../src/domain/describeChecks.ts"
import { AnswerTooLong, GenerationFailed } from "../../src/domain/errors.ts"
import { limits } from "../../src/domain/limits.ts"
import { dropLimits } from "../../src/http/connections.ts"
import { Accounts } from "../../src/services/Accounts.ts"
import { ApiKeys } from "../../src/services/ApiKeys.ts"
import { CreditWait } from "../../src/services/creditReservation.ts"
import { Describer } from "../../src/services/Describer.ts"
import { HostResolver } from "../../src/services/HostResolver.ts"
import { Idempotency } from "../../src/services/Idempotency.ts"
import { UploadBudget } from "../../src/services/UploadBudget.ts"
import { pgliteWith } from "../support/database.ts"
import { customer, jpeg, png, serverPort } from "../support/describe.ts"
import { animatedWebp, pngBomb, repeatedScansJpeg } from "../support/hostileImages.ts"
import { testSecret } from "../support/keys.ts"
import type { PartSpec } from "../support/multipartBody.ts"
import { concatBytes, multipartBody, multipartContentType } from "../support/multipartBody.ts"
import { requestHead, sendRaw } from "../support/rawHttp.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

/** A fake model: echoes field names, fails as the keywords ask it to. */
const model = Describer.scripted((request) =>
  request.keywords === "model-fails"
    ? Effect.fail(new GenerationFailed({ reason: "failed" }))
    : request.keywords === "answer-too-long"
    ? Effect.fail(new AnswerTooLong())
    : Effect.succeed(Object.fromEntries(request.fields.map((f) => [f.name, `${f.name} in ${request.language}`])))
)

/** Short, so that stalled uploads end quickly; long next to a 10 MB body on loopback. */
const uploadTimeoutMs = 1500

/** How each fault is carried; several ways where the spec names several (§7.1, §4.1 headers). */
interface Variants {
  readonly missingKey: "absent" | "basic" | "bare"
  readonly badKey: "garbage" | "truncated" | "deleted" | "notAKey" | "accountGone"
  readonly notMultipart: "json" | "noBoundary"
  /** Past §8's 64 characters, or past what the form reader keeps of the part. */
  readonly language: "over64" | "overCap"
  /** Against a rule of §2.2, or past what the form reader keeps of the part. */
  readonly badSchema: "tooManyFields" | "overCap"
  /** With a Content-Length, or chunked (a streamed body: check 3 counts it as it comes). */
  readonly framing: "length" | "chunked"
  /** The order of the form's parts. */
  readonly parts: ReadonlyArray<"image" | "schema" | "keywords" | "language">
}

const plain: Variants = {
  missingKey: "absent",
  badKey: "garbage",
  notMultipart: "json",
  language: "over64",
  badSchema: "tooManyFields",
  framing: "length",
  parts: ["image", "schema", "keywords", "language"]
}

/** What the client must see when this fault is the first, and the usage row the request leaves. */
interface Expected {
  readonly status: number
  readonly error: string | ((variants: Variants) => string)
  /** Whether the answer closes the connection (answers given before the body was read, unless it was dropped). */
  readonly closes: boolean | ((sent: Sent) => boolean)
  readonly usage: "none" | "refused" | "released"
}

const imageTooLarge = "Image too large: the maximum is 10 MB"

/** What was sent: the variants, and whether an unread body is read and dropped (http/connections.ts). */
interface Sent {
  readonly variants: Variants
  /** Whole, within `dropLimits.large.maxBytes`, and not announced past it. */
  readonly droppable: boolean
}
const notMultipart = "Bad Request, the body must be multipart/form-data"

/**
 * One fault per failure of the table, in the order the checks meet them (§4.1; within a check,
 * the order the service checks in). A failure without a fault does not compile.
 */
const answers: { readonly [T in DescribeErrorTag]: Expected } = {
  // Answered before the body is read: a small body that comes whole is dropped, the connection kept.
  ApiKeyMissing: { status: 401, error: "Unauthorized, missing Authorization header", closes: (s) => !s.droppable, usage: "none" },
  KeyRejected: { status: 401, error: "Unauthorized, invalid token", closes: (s) => !s.droppable, usage: "none" },
  NoCreditLeft: { status: 401, error: "Unauthorized, no credit left", closes: (s) => !s.droppable, usage: "refused" },
  // Every credit held (by the test) past the credit wait: not an empty balance, so a retryable 500.
  CreditsHeld: { status: 500, error: "Internal Server Error", closes: (s) => !s.droppable, usage: "none" },
  // Announced by Content-Length (answered unread) or counted while a chunked body streams.
  RequestTooLarge: { status: 413, error: imageTooLarge, closes: (s) => s.variants.framing === "length", usage: "released" },
  // The account's share of the upload memory is held (by the test) past the upload deadline.
  UploadBudgetTimedOut: { status: 500, error: "Internal Server Error", closes: (s) => !s.droppable, usage: "released" },
  // The body stops short of its end.
  UploadTimedOut: { status: 500, error: "Internal Server Error", closes: true, usage: "released" },
  NotMultipart: { status: 400, error: notMultipart, closes: false, usage: "released" },
  // An `Idempotency-Key` of 256 characters.
  IdempotencyKeyInvalid: {
    status: 400,
    error: "Bad Request, Idempotency-Key must be 1 to 255 printable characters",
    closes: false,
    usage: "released"
  },
  // The key claimed by a request still running (its claim written by the test).
  IdempotencyKeyInProgress: { status: 409, error: "A request with this Idempotency-Key is in progress", closes: false, usage: "released" },
  // The key's stored 200 is of another request (written by the test).
  IdempotencyKeyReused: { status: 422, error: "Idempotency-Key was used with a different request", closes: false, usage: "released" },
  NoFileUploaded: { status: 400, error: "Bad Request, No file uploaded", closes: false, usage: "released" },
  LanguageTooLong: { status: 400, error: "Bad Request, language must be at most 64 characters", closes: false, usage: "released" },
  InvalidSchema: {
    status: 400,
    error: (v) => `Invalid schema: ${v.badSchema === "overCap" ? "the schema is too large" : "at most 20 fields are allowed"}`,
    closes: false,
    usage: "released"
  },
  // The image given by URL instead of a file: a scheme that is not http(s)...
  ImageUrlRefused: { status: 400, error: "Bad Request, imageUrl must be a public http or https URL", closes: false, usage: "released" },
  // ... or a host name that does not resolve (the test's resolver knows no name).
  ImageUrlFetchFailed: {
    status: 400,
    error: "Bad Request, the image at imageUrl could not be fetched: its host name did not resolve",
    closes: false,
    usage: "released"
  },
  // The image part over 10 MB: whatever image it holds, padded.
  ImageTooLarge: { status: 413, error: imageTooLarge, closes: false, usage: "released" },
  InvalidImageFile: { status: 400, error: "Bad Request, Invalid image file", closes: false, usage: "released" },
  ImageTooManyScans: { status: 413, error: "Image too large: the maximum is 32 scans per JPEG", closes: false, usage: "released" },
  ImageTooManyFrames: { status: 413, error: "Image too large: the maximum is 2000 frames per animated WebP", closes: false, usage: "released" },
  ImageTooManyPixels: { status: 413, error: "Image too large: the maximum is 100 megapixels", closes: false, usage: "released" },
  ImageProcessingFailed: {
    status: 500,
    error: "Image processing failed: the PNG file is truncated or corrupt",
    closes: false,
    usage: "released"
  },
  AnswerTooLong: {
    status: 400,
    error:
      "Invalid schema: the requested fields need a longer answer than the API can return (about 1,500 words for all fields together), ask for fewer or shorter fields",
    closes: false,
    usage: "released"
  },
  GenerationFailed: { status: 500, error: "Internal Server Error", closes: false, usage: "released" }
}

const faultOrder = Object.keys(answers) as ReadonlyArray<DescribeErrorTag>
type Faults = Readonly<Record<DescribeErrorTag, boolean>>

/** Faults that set the same thing (the image's content, the model's answer): one at a time. */
const exclusive: ReadonlyArray<ReadonlyArray<DescribeErrorTag>> = [
  ["ImageUrlRefused", "ImageUrlFetchFailed"],
  ["InvalidImageFile", "ImageTooManyScans", "ImageTooManyFrames", "ImageTooManyPixels", "ImageProcessingFailed"],
  ["AnswerTooLong", "GenerationFailed"],
  ["NoCreditLeft", "CreditsHeld"],
  ["IdempotencyKeyInvalid", "IdempotencyKeyInProgress", "IdempotencyKeyReused"]
]

const none = Object.fromEntries(faultOrder.map((fault) => [fault, false])) as Faults
const withFaults = (...on: ReadonlyArray<DescribeErrorTag>): Faults => ({ ...none, ...Object.fromEntries(on.map((f) => [f, true])) })

const badSchemas = {
  tooManyFields: JSON.stringify(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, "d"]))),
  // Valid JSON of one field, over the 256 KiB the reader keeps (http/multipart.ts).
  overCap: JSON.stringify({ title: "t".repeat(256 * 1024) })
}
const longLanguages = { over64: "x".repeat(limits.languageLength + 1), overCap: "x".repeat(64 * 1024 + 1) }
const manyScans = repeatedScansJpeg(
  new Uint8Array(await sharp({ create: { width: 64, height: 48, channels: 3, background: "#336699" } }).jpeg({ progressive: true }).toBuffer()),
  40
)
const manyFrames = await animatedWebp(2001)
const pixelBomb = pngBomb(12_000)
const undecodable = png.slice(0, png.length - 30)
/** Past check 3's 11 MB on its own: a streamed body that carries it is too large whatever else it holds. */
const padding = new Uint8Array(limits.bodyBytes + 64).fill(0x61)
/** A stalled body stops this many bytes short of its end: its form is never complete. */
const stallShort = 16
const boundary = "describe-order-boundary"
const starting = 2

/** The image part's content for these faults. */
const imageOf = (faults: Faults): Uint8Array => {
  const content = faults.InvalidImageFile
    ? new TextEncoder().encode("just some text, not a picture")
    : faults.ImageTooManyPixels
    ? pixelBomb
    : faults.ImageTooManyScans
    ? manyScans
    : faults.ImageTooManyFrames
    ? manyFrames
    : faults.ImageProcessingFailed
    ? undecodable
    : jpeg
  if (!faults.ImageTooLarge) return content
  const large = new Uint8Array(limits.imageBytes + 1)
  large.set(content)
  return large
}

/** Parsed JSON, or the raw text when the body is not JSON (so a failure shows what came back). */
const jsonOf = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** A key this service signed, or once issued, that `/describe` refuses (§7.1 folds them into one 401). */
const rejectedKey = (variant: Variants["badKey"], token: string) =>
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    switch (variant) {
      case "garbage":
        return "not-a-key"
      case "truncated":
        return token.slice(0, -4)
      case "notAKey":
        return yield* Effect.promise(() =>
          new SignJWT({ purpose: "session" }).setProtectedHeader({ alg: "HS256" }).setExpirationTime("1h").sign(testSecret))
      case "deleted":
      case "accountGone": {
        const other = yield* customer(1)
        if (variant === "accountGone") {
          yield* Effect.flatMap(Accounts, (accounts) => accounts.remove(other.accountId))
          return other.token
        }
        const { key, token: deleted } = yield* keys.create(other.accountId, { expiredAt: new Date(Date.now() + 864e5) })
        yield* keys.remove(key.id)
        return deleted
      }
    }
  }).pipe(Effect.orDie)

/** Sends one request carrying `faults` for a new customer; checks the answer and the credits. */
const check = (faults: Faults, variants: Variants = plain) =>
  Effect.gen(function* () {
    const c = yield* customer(faults.NoCreditLeft ? 0 : starting)
    // What the account's requests in flight would hold; given back once this request is answered.
    const holdAll = (held: boolean) =>
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`UPDATE accounts SET reserved = ${held ? starting : 0} WHERE id = ${c.accountId}`).pipe(Effect.orDie)
    if (faults.CreditsHeld) yield* holdAll(true)
    const port = yield* serverPort
    // The budget is only waited on by a body with a length (a chunked one takes its bytes as they come).
    const chunked = variants.framing === "chunked" && !faults.UploadBudgetTimedOut
    const announced = faults.RequestTooLarge && !chunked

    const authorization = faults.ApiKeyMissing
      ? { absent: undefined, basic: `Basic ${c.token}`, bare: c.token }[variants.missingKey]
      : faults.KeyRejected
      ? `Bearer ${yield* rejectedKey(variants.badKey, c.token)}`
      : `Bearer ${c.token}`

    const parts: ReadonlyArray<PartSpec> = [
      ...(faults.RequestTooLarge && chunked ? [{ name: "padding", data: padding }] : []),
      ...variants.parts.flatMap((name): ReadonlyArray<PartSpec> => {
        switch (name) {
          case "image":
            return faults.NoFileUploaded
              ? []
              : faults.ImageUrlRefused
              ? [{ name: "imageUrl", data: "file:///etc/passwd" }]
              : faults.ImageUrlFetchFailed
              ? [{ name: "imageUrl", data: "http://unresolved.test/photo.jpg" }]
              : [{ name, filename: "photo.jpg", contentType: "image/jpeg", data: imageOf(faults) }]
          case "schema":
            // A long answer is the schema's fault (400) only when there is one (domain/describeAnswer.ts).
            return faults.InvalidSchema
              ? [{ name, data: badSchemas[variants.badSchema] }]
              : faults.AnswerTooLong
              ? [{ name, data: JSON.stringify({ title: "A title" }) }]
              : []
          case "keywords":
            return faults.GenerationFailed
              ? [{ name, data: "model-fails" }]
              : faults.AnswerTooLong
              ? [{ name, data: "answer-too-long" }]
              : []
          case "language":
            return faults.LanguageTooLong ? [{ name, data: longLanguages[variants.language] }] : []
        }
      })
    ]
    const form = multipartBody(boundary, parts)
    const json = () =>
      concatBytes([JSON.stringify({ image: "aGVsbG8=", keywords: "cats" }), ...(faults.RequestTooLarge && chunked ? [padding] : [])])
    const [contentType, body] = !faults.NotMultipart
      ? [multipartContentType(boundary), form]
      : variants.notMultipart === "json"
      ? ["application/json", json()]
      : ["multipart/form-data", form]
    const sent = faults.UploadTimedOut ? body.subarray(0, body.length - stallShort) : body
    const pieces = chunked
      ? Array.from({ length: Math.ceil(sent.length / 1024 ** 2) }, (_, i) => sent.subarray(i * 1024 ** 2, (i + 1) * 1024 ** 2))
      : [sent]

    const idempotencyKey = faults.IdempotencyKeyInvalid
      ? "k".repeat(256)
      : faults.IdempotencyKeyInProgress || faults.IdempotencyKeyReused
      ? "order-key"
      : undefined
    if (faults.IdempotencyKeyInProgress || faults.IdempotencyKeyReused) {
      const idempotency = yield* Idempotency
      const claimId = yield* idempotency.claim(c.accountId, "order-key", "another request").pipe(Effect.orDie)
      if (faults.IdempotencyKeyReused) yield* idempotency.complete(claimId, { body: "{}", headers: {} })
    }

    const answer = yield* Effect.scoped(Effect.gen(function* () {
      if (faults.UploadBudgetTimedOut) {
        // The whole share of the account, as its other uploads would hold it.
        const held = yield* Effect.flatMap(UploadBudget, (budget) => budget.hold(c.accountId))
        yield* held.take(Number.MAX_SAFE_INTEGER)
      }
      return yield* sendRaw({
        port,
        head: requestHead("POST", "/api/describe", {
          ...(authorization === undefined ? {} : { authorization }),
          "content-type": contentType,
          ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }),
          ...(chunked
            ? { "transfer-encoding": "chunked" }
            : { "content-length": String(announced ? 50 * 1024 * 1024 : body.length) })
        }),
        // A 50 MB announcement comes with no body at all: only an early answer can end the exchange.
        body: announced ? [] : pieces,
        chunked,
        finish: !faults.UploadTimedOut,
        timeoutMs: uploadTimeoutMs + 15_000
      })
    }))

    if (faults.CreditsHeld) yield* holdAll(false)
    const first = faultOrder.find((fault) => faults[fault])
    const seen = {
      status: answer.status,
      contentType: answer.headers["content-type"],
      body: jsonOf(answer.body),
      closes: answer.headers["connection"] === "close"
    }
    if (first === undefined) {
      expect(seen).toEqual({
        status: 200,
        contentType: "application/json",
        body: { title: "title in en", alternativeText: "alternativeText in en", caption: "caption in en", alt_text: "alternativeText in en" },
        closes: false
      })
      expect(yield* c.balance).toBe(starting - 1)
      expect((yield* c.ledger).map((row) => [row.amount, row.reason])).toEqual([[starting, "purchase"], [-1, "describe"]])
      expect((yield* c.usage).map((u) => [u.state, u.status, u.errorKind])).toEqual([["charged", 200, null]])
    } else {
      const expected = answers[first]
      const carried: Variants = { ...variants, framing: chunked ? "chunked" : "length" }
      const error = typeof expected.error === "string" ? expected.error : expected.error(carried)
      // A key with a stored 200 has the form read before check 2 (describeOnce.ts): a body the form
      // reader began is no longer unread when check 2 answers, and is not the edge's to drop. Unless
      // it never began: with the upload memory spent, the body (always with a Content-Length then)
      // waits unread for room.
      const readFirst = faults.IdempotencyKeyReused && !announced && !faults.UploadBudgetTimedOut &&
        (first === "NoCreditLeft" || first === "CreditsHeld")
      const droppable = readFirst || (!announced && !faults.UploadTimedOut && sent.length <= dropLimits.large.maxBytes)
      const closes = typeof expected.closes === "boolean" ? expected.closes : expected.closes({ variants: carried, droppable })
      expect(seen).toEqual({ status: expected.status, contentType: "application/json", body: { error }, closes })
      expect(yield* c.balance).toBe(faults.NoCreditLeft ? 0 : starting)
      expect((yield* c.ledger).length).toBe(faults.NoCreditLeft ? 0 : 1)
      const usage = { none: [], refused: [["refused", expected.status, first]], released: [["released", expected.status, first]] }
      expect((yield* c.usage).map((u) => [u.state, u.status, u.errorKind])).toEqual(usage[expected.usage])
    }
  })


/**
 * Faults drawn so that every check is the first failing one equally often: the faults before the
 * chosen first one are off, the ones after it are on or off at random (one of each exclusive set).
 */
const faultsArbitrary = fc
  .record({
    first: fc.integer({ min: 0, max: faultOrder.length }),
    rest: fc.array(fc.boolean(), { minLength: faultOrder.length, maxLength: faultOrder.length })
  })
  .map(({ first, rest }): Faults => {
    const on = new Set<DescribeErrorTag>()
    faultOrder.forEach((fault, i) => {
      const clashes = exclusive.some((set) => set.includes(fault) && set.some((other) => on.has(other)))
      if ((i === first || (i > first && rest[i] === true)) && !clashes) on.add(fault)
    })
    return withFaults(...on)
  })

const variantsArbitrary: fc.Arbitrary<Variants> = fc.record({
  missingKey: fc.constantFrom("absent", "basic", "bare"),
  badKey: fc.constantFrom("garbage", "truncated", "deleted", "notAKey", "accountGone"),
  notMultipart: fc.constantFrom("json", "noBoundary"),
  language: fc.constantFrom("over64", "overCap"),
  badSchema: fc.constantFrom("tooManyFields", "overCap"),
  framing: fc.constantFrom("length", "chunked"),
  parts: fc.shuffledSubarray(["image", "schema", "keywords", "language"] as const, { minLength: 4, maxLength: 4 })
})

describe("the faults of the order test", () => {
  it("cover every failure of the table of checks, in the order of its checks", () => {
    expect([...faultOrder].sort()).toEqual(Object.keys(describeChecks).sort())
    const checks = faultOrder.map((fault) => describeChecks[fault].check)
    expect(checks).toEqual([...checks].sort((a, b) => a - b))
  })
})

const services = Layer.merge(
  // A short credit wait, so that credits held past it (CreditsHeld) take a moment, not 10 s.
  servicesOn(pgliteWith({ UPLOAD_TIMEOUT_MS: String(uploadTimeoutMs) }), model).pipe(
    Layer.provide(Layer.succeed(CreditWait, Duration.millis(300)))
  ),
  Layer.succeed(HostResolver, HostResolver.fixed({}))
)

layer(serverWith(services), { excludeTestServices: true })("POST /api/describe, order of checks", (it) => {
  it.effect.prop(
    "a request with several faults gets the answer of the first failing check; only a 200 uses a credit",
    { faults: faultsArbitrary, variants: variantsArbitrary },
    ({ faults, variants }) => check(faults, variants),
    { timeout: 180_000, fastCheck: { numRuns: 80 } }
  )

  it.effect("a bad key with a huge Content-Length: 401, not 413", () => check(withFaults("KeyRejected", "RequestTooLarge")))

  it.effect("a zero balance with no form: 401 no credit left, not 400", () => check(withFaults("NoCreditLeft", "NotMultipart")))

  // A key with a stored 200 reads the form before the credit check (a replay needs no credit); for
  // another request the order of §4.1 still holds.
  it.effect("a zero balance and a key stored for another request: 401 no credit left, not 422", () =>
    check(withFaults("NoCreditLeft", "IdempotencyKeyReused")))

  it.effect("a zero balance, a key stored for another request and a body that stalls, or streams past 11 MB: 401 (the form read first)", () =>
    Effect.gen(function* () {
      yield* check(withFaults("NoCreditLeft", "IdempotencyKeyReused", "UploadTimedOut"))
      yield* check(withFaults("NoCreditLeft", "IdempotencyKeyReused", "RequestTooLarge"), { ...plain, framing: "chunked" })
    }))

  it.effect("the same with the upload memory spent: the body, left unread, is not dropped once it stalls: the connection is closed", () =>
    check(withFaults("NoCreditLeft", "IdempotencyKeyReused", "UploadTimedOut", "UploadBudgetTimedOut")))

  it.effect("a key stored for another request, a huge Content-Length: 413, not 422", () =>
    check(withFaults("RequestTooLarge", "IdempotencyKeyReused")))

  it.effect("a key in use by a running request, no image: 409, not 400", () =>
    check(withFaults("IdempotencyKeyInProgress", "NoFileUploaded")))

  it.effect("a huge Content-Length with a bad schema: 413, not 400", () => check(withFaults("RequestTooLarge", "InvalidSchema")))

  it.effect("a streamed body over 11 MB that stalls, with no image: 413, the connection kept", () =>
    check(withFaults("RequestTooLarge", "UploadTimedOut", "NoFileUploaded"), { ...plain, framing: "chunked" }))

  it.effect("a huge Content-Length while the account's upload memory is held: 413 at once, not the 500", () =>
    check(withFaults("RequestTooLarge", "UploadBudgetTimedOut")))

  it.effect("a stalled upload with no image: the deadline's 400, connection closed", () =>
    check(withFaults("UploadTimedOut", "NoFileUploaded")))

  it.effect("no image and a long language: no file uploaded", () => check(withFaults("NoFileUploaded", "LanguageTooLong")))

  it.effect("a long language with a bad schema: the language's 400", () =>
    Effect.forEach(["over64", "overCap"] as const, (language) =>
      Effect.forEach(["tooManyFields", "overCap"] as const, (badSchema) =>
        check(withFaults("LanguageTooLong", "InvalidSchema"), { ...plain, language, badSchema }))))

  it.effect("a bad schema with a bad image: the schema's 400", () => check(withFaults("InvalidSchema", "InvalidImageFile")))

  it.effect("a bad schema with an image URL that is refused: the schema's 400, nothing fetched", () =>
    check(withFaults("InvalidSchema", "ImageUrlRefused")))

  it.effect("no image and no image URL: no file uploaded", () => check(withFaults("NoFileUploaded", "ImageUrlFetchFailed")))

  it.effect("an image part over 10 MB that is not an image: 413, not 400", () => check(withFaults("ImageTooLarge", "InvalidImageFile")))

  it.effect("a bad image for a failing model: 400, the model is never asked", () => check(withFaults("InvalidImageFile", "GenerationFailed")))

  it.effect("every fault at once: 401 missing Authorization header", () =>
    check(withFaults(...faultOrder.filter((fault) => !exclusive.some((set) => set.indexOf(fault) > 0)))))

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
