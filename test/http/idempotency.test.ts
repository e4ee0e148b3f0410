/**
 * `Idempotency-Key` on `POST /api/describe` (README, "Retries without paying twice"), on PGlite and
 * PostgreSQL: a retry of the same request gets the stored 200 again, uncharged; another request
 * with the key is a 422, one while the first runs a 409; failures are not stored; keys are the
 * account's; a stored 200 expires after 24 hours and a claim after its lease.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Option, Ref, TestClock } from "effect"
import { GenerationFailed } from "../../src/domain/errors.ts"
import { parseWholeForm } from "../../src/http/multipart.ts"
import { requestDigest } from "../../src/domain/idempotency.ts"
import { Accounts } from "../../src/services/Accounts.ts"
import { Credits } from "../../src/services/Credits.ts"
import { currentUsageId } from "../../src/services/creditReservation.ts"
import { makeCreditStatements } from "../../src/services/creditStatements.ts"
import { Describer } from "../../src/services/Describer.ts"
import { Idempotency } from "../../src/services/Idempotency.ts"
import { backends, postgresSkipReason, postgresUrl } from "../support/database.ts"
import { customer, jpeg, png, serverPort } from "../support/describe.ts"
import { multipartBody, multipartContentType, type PartSpec } from "../support/multipartBody.ts"
import { requestHead, sendRaw } from "../support/rawHttp.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

/** What the model was asked, and the gate that holds a `slow` request until the test opens it. */
const calls = Effect.runSync(Ref.make(0))
interface Gate {
  readonly entered: Deferred.Deferred<void>
  readonly open: Deferred.Deferred<void>
}
const gates = Effect.runSync(Ref.make<Gate>({ entered: Effect.runSync(Deferred.make()), open: Effect.runSync(Deferred.make()) }))
const failOnce = Effect.runSync(Ref.make(true))

/** Echoes field names; `slow` waits at the gate; `fails-once` fails its first call. */
const model = Describer.scripted((request) =>
  Effect.gen(function* () {
    yield* Ref.update(calls, (n) => n + 1)
    if (request.keywords === "slow") {
      const gate = yield* Ref.get(gates)
      yield* Deferred.succeed(gate.entered, undefined)
      yield* Deferred.await(gate.open)
    }
    if (request.keywords === "fails-once" && (yield* Ref.getAndSet(failOnce, false))) {
      return yield* new GenerationFailed({ reason: "failed" })
    }
    return Object.fromEntries(request.fields.map((f) => [f.name, `${f.name} in ${request.language}`]))
  }))

const newGate = Effect.gen(function* () {
  const gate = { entered: yield* Deferred.make<void>(), open: yield* Deferred.make<void>() }
  yield* Ref.set(gates, gate)
  return gate
})

interface Form {
  readonly image?: Uint8Array
  readonly keywords?: string
  readonly language?: string
}

/** A describe with `key` as its `Idempotency-Key` (none when undefined): status, the headers that matter, the body. */
const post = (token: string, key: string | undefined, form: Form = { image: jpeg }) =>
  Effect.gen(function* () {
    const parts: ReadonlyArray<PartSpec> = [
      ...(form.image === undefined ? [] : [{ name: "image", filename: "a.jpg", data: form.image }]),
      ...(form.keywords === undefined ? [] : [{ name: "keywords", data: form.keywords }]),
      ...(form.language === undefined ? [] : [{ name: "language", data: form.language }])
    ]
    const body = multipartBody("idem", parts)
    const answer = yield* sendRaw({
      port: yield* serverPort,
      head: requestHead("POST", "/api/describe", {
        authorization: `Bearer ${token}`,
        "content-type": multipartContentType("idem"),
        "content-length": String(body.length),
        ...(key === undefined ? {} : { "idempotency-key": key })
      }),
      body: [body],
      timeoutMs: 30_000
    })
    return {
      status: answer.status,
      body: JSON.parse(answer.body) as unknown,
      contentLanguage: answer.headers["content-language"],
      describer: answer.headers["x-describer"],
      replayed: answer.headers["idempotent-replayed"]
    }
  }).pipe(Effect.orDie)

const described = (language = "en") => ({
  title: `title in ${language}`,
  alternativeText: `alternativeText in ${language}`,
  caption: `caption in ${language}`,
  alt_text: `alternativeText in ${language}`
})

const first = (language = "en") => ({
  status: 200, body: described(language), contentLanguage: language, describer: "scripted", replayed: undefined
})

const failure = (status: number, error: string) => ({
  status, body: { error }, contentLanguage: undefined, describer: undefined, replayed: undefined
})

const inProgress = failure(409, "A request with this Idempotency-Key is in progress")
const reused = failure(422, "Idempotency-Key was used with a different request")
const invalid = failure(400, "Bad Request, Idempotency-Key must be 1 to 255 printable characters")

/** What the account paid: its balance, its ledger and its usage rows. */
const paid = (c: Effect.Effect.Success<ReturnType<typeof customer>>) =>
  Effect.all({
    balance: c.balance,
    ledger: Effect.map(c.ledger, (rows) => rows.map((row) => [row.amount, row.reason])),
    usage: Effect.map(c.usage, (rows) => rows.map((u) => [u.state, u.status, u.errorKind]).reverse())
  })

for (const backend of backends) {
  layer(serverWith(servicesOn(backend, model)), { excludeTestServices: true })(`Idempotency-Key on ${backend.name}`, (it) => {
    it.effect("a retry of the same request gets the same 200 with Idempotent-Replayed, without a second charge or model call", () =>
      Effect.gen(function* () {
        const c = yield* customer(3)
        const before = yield* Ref.get(calls)
        expect(yield* post(c.token, "order-1")).toEqual(first())
        expect(yield* post(c.token, "order-1")).toEqual({ ...first(), replayed: "true" })
        expect(yield* post(c.token, "order-1")).toEqual({ ...first(), replayed: "true" })
        expect((yield* Ref.get(calls)) - before).toBe(1)
        expect(yield* paid(c)).toEqual({
          balance: 2,
          ledger: [[3, "purchase"], [-1, "describe"]],
          usage: [["charged", 200, null]]
        })
      }))

    it.effect("a replay needs no free credit: the 200 that spent the last credit is answered again on a 0 balance", () =>
      Effect.gen(function* () {
        const c = yield* customer(1)
        expect(yield* post(c.token, "last")).toEqual(first())
        expect(yield* c.balance).toBe(0)
        expect(yield* post(c.token, "last")).toEqual({ ...first(), replayed: "true" })
        // Another key, or another request with this one, still meets the credit check first.
        expect(yield* post(c.token, "other")).toEqual(failure(401, "Unauthorized, no credit left"))
        expect(yield* post(c.token, "last", { image: png })).toEqual(failure(401, "Unauthorized, no credit left"))
        expect((yield* paid(c)).balance).toBe(0)
      }))

    it.effect("the same key with another image or other fields: 422, uncharged; the stored 200 stays", () =>
      Effect.gen(function* () {
        const c = yield* customer(3)
        expect(yield* post(c.token, "k")).toEqual(first())
        expect(yield* post(c.token, "k", { image: png })).toEqual(reused)
        expect(yield* post(c.token, "k", { image: jpeg, language: "fr" })).toEqual(reused)
        expect(yield* post(c.token, "k", { image: jpeg, keywords: "beach" })).toEqual(reused)
        // Trimmed fields and the default language are the same request.
        expect(yield* post(c.token, "k", { image: jpeg, language: " en ", keywords: "  " })).toEqual({ ...first(), replayed: "true" })
        expect(yield* paid(c)).toEqual({
          balance: 2,
          ledger: [[3, "purchase"], [-1, "describe"]],
          usage: [["charged", 200, null], ...Array.from({ length: 3 }, () => ["released", 422, "IdempotencyKeyReused"])]
        })
      }))

    it.effect("a failure is not stored: the retry runs again and is charged once, when it succeeds", () =>
      Effect.gen(function* () {
        const c = yield* customer(2)
        yield* Ref.set(failOnce, true)
        const form = { image: jpeg, keywords: "fails-once" }
        expect(yield* post(c.token, "flaky", form)).toEqual(failure(500, "Internal Server Error"))
        expect(yield* c.balance).toBe(2)
        expect(yield* post(c.token, "flaky", form)).toEqual(first())
        expect(yield* post(c.token, "flaky", form)).toEqual({ ...first(), replayed: "true" })
        expect(yield* paid(c)).toEqual({
          balance: 1,
          ledger: [[2, "purchase"], [-1, "describe"]],
          usage: [["released", 500, "GenerationFailed"], ["charged", 200, null]]
        })
      }))

    it.effect("a 200 stored whose credit could not be captured (a survivor's sweep released the hold) was a 500: the retry runs anew and pays", () =>
      Effect.gen(function* () {
        const c = yield* customer(1)
        const gate = yield* newGate
        const form = { image: jpeg, keywords: "slow" }
        const running = yield* Effect.fork(post(c.token, "swept", form))
        yield* Deferred.await(gate.entered)
        // What another replica's sweep does to the holds of a process it judged stopped.
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE usage SET state = 'released', status = 500, error_kind = 'Abandoned' WHERE account_id = ${c.accountId} AND state = 'reserved'`
        yield* sql`UPDATE accounts SET reserved = reserved - 1 WHERE id = ${c.accountId}`
        yield* Deferred.succeed(gate.open, undefined)
        expect(yield* Fiber.join(running)).toEqual(failure(500, "Internal Server Error"))
        expect(yield* post(c.token, "swept", form)).toEqual(first())
        expect(yield* paid(c)).toEqual({
          balance: 0,
          ledger: [[1, "purchase"], [-1, "describe"]],
          usage: [["released", 500, "Abandoned"], ["charged", 200, null]]
        })
      }).pipe(Effect.orDie))

    it.effect("a 200 stored by a process killed before its capture: 409 while the hold stands, then (the hold released by a survivor's sweep) the retry runs anew and pays", () =>
      Effect.gen(function* () {
        const c = yield* customer(2)
        // What the killed process left: its claim completed with the 200, under a credit still held.
        const idempotency = yield* Idempotency
        const form = yield* parseWholeForm(multipartContentType("idem"), multipartBody("idem", [{ name: "image", filename: "a.jpg", data: jpeg }]))
        const claimId = yield* idempotency.claim(c.accountId, "killed", requestDigest(form))
        const usageId = yield* Effect.flatMap(Credits, (credits) => credits.reserve(c.accountId, null))
        yield* Effect.locally(idempotency.complete(claimId, { body: JSON.stringify(described()), headers: {} }), currentUsageId, usageId)
        expect(yield* post(c.token, "killed")).toEqual(inProgress)
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE usage SET state = 'released', status = 500, error_kind = 'Abandoned' WHERE id = ${usageId}`
        yield* sql`UPDATE accounts SET reserved = reserved - 1 WHERE id = ${c.accountId}`
        const callsBefore = yield* Ref.get(calls)
        expect(yield* post(c.token, "killed")).toEqual(first())
        expect(yield* Ref.get(calls)).toBe(callsBefore + 1)
        expect(yield* paid(c)).toEqual({
          balance: 1,
          ledger: [[2, "purchase"], [-1, "describe"]],
          usage: [["released", 500, "Abandoned"], ["released", 409, "IdempotencyKeyInProgress"], ["charged", 200, null]]
        })
        // Now its own 200, charged: replayed.
        expect(yield* post(c.token, "killed")).toEqual({ ...first(), replayed: "true" })
      }).pipe(Effect.orDie))

    /**
     * A capture committed, its process never told (the database out of reach as it answered): that
     * process answers 500 and gives the credit back once the database is back. A retry that came
     * before the give-back got the stored 200, so the charge must stand (found by review: the
     * give-back undid it, and the 200 was free).
     */
    const capturedUnconfirmed = (c: Effect.Effect.Success<ReturnType<typeof customer>>, key: string) =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency
        const credits = yield* Credits
        const form = yield* parseWholeForm(multipartContentType("idem"), multipartBody("idem", [{ name: "image", filename: "a.jpg", data: jpeg }]))
        const claimId = yield* idempotency.claim(c.accountId, key, requestDigest(form))
        const usageId = yield* credits.reserve(c.accountId, null)
        const headers = { "content-language": "en", "x-describer": "scripted" }
        yield* Effect.locally(idempotency.complete(claimId, { body: JSON.stringify(described()), headers }), currentUsageId, usageId)
        expect(yield* credits.settle(usageId, { status: 200, errorKind: null })).toMatchObject({ charged: true })
        const statements = yield* makeCreditStatements
        // What that process does once the database is back: give the credit back, free the key.
        const giveBack = statements.abandon(usageId, { status: 500, errorKind: "SettleFailed" }, Option.none()).pipe(
          Effect.zipRight(idempotency.release(claimId))
        )
        return giveBack
      })

    it.effect("a capture its process could not confirm, replayed before the give-back: the charge stands, and retries keep getting the 200", () =>
      Effect.gen(function* () {
        const c = yield* customer(1)
        const giveBack = yield* capturedUnconfirmed(c, "unconfirmed")
        const callsBefore = yield* Ref.get(calls)
        expect(yield* post(c.token, "unconfirmed")).toEqual({ ...first(), replayed: "true" })
        yield* giveBack
        expect(yield* post(c.token, "unconfirmed")).toEqual({ ...first(), replayed: "true" })
        expect(yield* Ref.get(calls)).toBe(callsBefore)
        expect(yield* paid(c)).toEqual({ balance: 0, ledger: [[1, "purchase"], [-1, "describe"]], usage: [["charged", 200, null]] })
      }).pipe(Effect.orDie))

    it.effect("a capture its process could not confirm, given back before any retry: the retry runs anew and pays once", () =>
      Effect.gen(function* () {
        const c = yield* customer(1)
        yield* Effect.flatten(capturedUnconfirmed(c, "given-back"))
        expect(yield* paid(c)).toEqual({ balance: 1, ledger: [[1, "purchase"]], usage: [["released", 500, "SettleFailed"]] })
        expect(yield* post(c.token, "given-back")).toEqual(first())
        expect(yield* paid(c)).toEqual({
          balance: 0,
          ledger: [[1, "purchase"], [-1, "describe"]],
          usage: [["released", 500, "SettleFailed"], ["charged", 200, null]]
        })
      }).pipe(Effect.orDie))

    it.effect("an empty key or one over 255 characters: 400, uncharged; 255 characters is a key", () =>
      Effect.gen(function* () {
        const c = yield* customer(2)
        expect(yield* post(c.token, "k".repeat(256))).toEqual(invalid)
        expect(yield* post(c.token, "")).toEqual(invalid)
        expect(yield* c.balance).toBe(2)
        expect(yield* post(c.token, "k".repeat(255))).toEqual(first())
        expect(yield* post(c.token, "k".repeat(255))).toEqual({ ...first(), replayed: "true" })
        expect(yield* c.balance).toBe(1)
      }))

    it.effect("while the first request runs: 409 for the same key, uncharged; once it ends, the retry is its replay", () =>
      Effect.gen(function* () {
        const c = yield* customer(3)
        const gate = yield* newGate
        const form = { image: jpeg, keywords: "slow" }
        const running = yield* Effect.fork(post(c.token, "slow-1", form))
        yield* Deferred.await(gate.entered)
        expect(yield* post(c.token, "slow-1", form)).toEqual(inProgress)
        expect(yield* post(c.token, "slow-1", { image: png })).toEqual(inProgress)
        yield* Deferred.succeed(gate.open, undefined)
        expect(yield* Fiber.join(running)).toEqual(first())
        expect(yield* post(c.token, "slow-1", form)).toEqual({ ...first(), replayed: "true" })
        expect(yield* paid(c)).toEqual({
          balance: 2,
          ledger: [[3, "purchase"], [-1, "describe"]],
          usage: [["charged", 200, null], ["released", 409, "IdempotencyKeyInProgress"], ["released", 409, "IdempotencyKeyInProgress"]]
        })
      }))

    it.effect("two requests with the same key at once: one 200, one 409, one credit used", () =>
      Effect.gen(function* () {
        const c = yield* customer(3)
        const gate = yield* newGate
        const oneEnded = yield* Deferred.make<void>()
        const request = post(c.token, "race", { image: jpeg, keywords: "slow" }).pipe(Effect.tap(() => Deferred.succeed(oneEnded, undefined)))
        const both = yield* Effect.fork(Effect.all([request, request], { concurrency: 2 }))
        // The loser is answered while the winner waits at the gate.
        yield* Deferred.await(oneEnded)
        yield* Deferred.succeed(gate.open, undefined)
        const answers = yield* Fiber.join(both)
        expect(answers.map((a) => a.status).sort()).toEqual([200, 409])
        expect(answers).toContainEqual(inProgress)
        expect((yield* paid(c)).balance).toBe(2)
      }))

    it.effect("a key is the account's: another account with the same key and image runs and pays", () =>
      Effect.gen(function* () {
        const a = yield* customer(2)
        const b = yield* customer(2)
        expect(yield* post(a.token, "shared")).toEqual(first())
        expect(yield* post(b.token, "shared")).toEqual(first())
        expect(yield* post(b.token, "shared")).toEqual({ ...first(), replayed: "true" })
        expect([(yield* a.balance), (yield* b.balance)]).toEqual([1, 1])
      }))

    it.effect("without a key, the same request twice runs and pays twice", () =>
      Effect.gen(function* () {
        const c = yield* customer(2)
        expect(yield* post(c.token, undefined)).toEqual(first())
        expect(yield* post(c.token, undefined)).toEqual(first())
        expect(yield* c.balance).toBe(0)
      }))
  })

  // The service's clock is the test's: a stored 200 lasts 24 hours, a claim its lease.
  layer(servicesOn(backend, model))(`Idempotency-Key entries expire on ${backend.name}`, (it) => {
    const account = Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "Shop" })).pipe(Effect.map((a) => a.id), Effect.orDie)

    it.effect("a stored 200 is replayed for 24 hours, then the key runs anew; the sweep removes it", () =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency
        const accountId = yield* account
        const claimId = yield* idempotency.claim(accountId, "day", "digest-1")
        yield* idempotency.complete(claimId, { body: "{}", headers: { "content-language": "en" } })
        yield* TestClock.adjust("23 hours")
        expect(yield* idempotency.stored(accountId, "day")).toMatchObject({ _tag: "Some", value: { digest: "digest-1" } })
        expect(yield* Effect.flip(idempotency.claim(accountId, "day", "digest-2"))).toMatchObject({ _tag: "IdempotencyKeyReused" })
        expect(yield* idempotency.sweep).toBe(0)
        yield* TestClock.adjust("1 hour")
        expect(yield* idempotency.stored(accountId, "day")).toMatchObject({ _tag: "None" })
        expect(yield* idempotency.sweep).toBe(1)
        // Runs anew: claimed by another request.
        yield* idempotency.claim(accountId, "day", "digest-2")
      }))

    it.effect("a claim nobody ends (its process died) blocks its key for the lease, then is taken over", () =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency
        const accountId = yield* account
        yield* idempotency.claim(accountId, "orphan", "digest-1")
        yield* TestClock.adjust("9 minutes")
        expect(yield* Effect.flip(idempotency.claim(accountId, "orphan", "digest-1"))).toMatchObject({ _tag: "IdempotencyKeyInProgress" })
        yield* TestClock.adjust("1 minute")
        const taken = yield* idempotency.claim(accountId, "orphan", "digest-1")
        yield* idempotency.complete(taken, { body: "{}", headers: {} })
        expect(yield* idempotency.stored(accountId, "orphan")).toMatchObject({ _tag: "Some" })
      }))
  })
}

if (!postgresUrl) describe.skip(postgresSkipReason, () => it("Idempotency-Key on PostgreSQL", () => {}))
