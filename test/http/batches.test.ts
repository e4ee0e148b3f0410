/**
 * Batches (README, "Batches") on PGlite and PostgreSQL, with the workers of one process: each item
 * is a describe with the describe's messages, charged on success only, run once; the batch's
 * endpoints, their 400s, 401s and 404s; cancelation; the `batch.completed` event queued once.
 */
import { afterAll } from "vitest"
import { expect, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Layer, Ref, Schedule } from "effect"
import { GenerationFailed } from "../../src/domain/errors.ts"
import { JsonText } from "../../src/domain/webhooks.ts"
import { CreditWait } from "../../src/services/creditReservation.ts"
import { Describer } from "../../src/services/Describer.ts"
import { batchServicesOn, call, ended, queuedWebhooks, startImageServer } from "../support/batches.ts"
import { backends } from "../support/database.ts"
import { customer } from "../support/describe.ts"
import { serverWith } from "../support/server.ts"

const images = await startImageServer()
afterAll(images.close)
const at = (path: string) => `http://images.test:${images.port}${path}`

const gate = Effect.runSync(Ref.make(Effect.runSync(Deferred.make<void>())))
const calls = Effect.runSync(Ref.make(0))
/** The `context` of each model call, in the order the calls came. */
const contexts = Effect.runSync(Ref.make<ReadonlyArray<string>>([]))
/** The schema's field names of each model call. */
const fieldNames = Effect.runSync(Ref.make<ReadonlyArray<ReadonlyArray<string>>>([]))

/** Echoes field names; keywords `fail` fail as the model would (a 500); `slow` waits at the gate; `slow-fail` both. */
const model = Describer.scripted((request) =>
  Effect.gen(function* () {
    yield* Ref.update(calls, (n) => n + 1)
    yield* Ref.update(contexts, (seen) => [...seen, request.context])
    yield* Ref.update(fieldNames, (seen) => [...seen, request.fields.map((field) => field.name)])
    if (request.keywords === "slow" || request.keywords === "slow-fail") yield* Deferred.await(yield* Ref.get(gate))
    if (request.keywords === "fail" || request.keywords === "slow-fail") return yield* new GenerationFailed({ reason: "failed" })
    return Object.fromEntries(request.fields.map((field) => [field.name, `${field.name} value`]))
  }))

const post = (key: string, body: unknown) => call("POST", "/api/batches", { key, body: JSON.stringify(body) })
const error = (status: number, message: string) => ({ status, body: { error: message } })
const failing = (key: string, body: string) => Effect.map(call("POST", "/api/batches", { key, body }), ({ status, body }) => ({ status, body }))

for (const backend of backends) {
  layer(serverWith(batchServicesOn(backend, model)), { excludeTestServices: true })(`Batches on ${backend.name}`, (it) => {
    it.effect("runs each item once as a describe: successes charged, failures with the describe's messages, one batch.completed", () =>
      Effect.gen(function* () {
        const c = yield* customer(10)
        yield* Ref.set(queuedWebhooks, [])
        const before = yield* Ref.get(calls)
        const created = yield* post(c.token, {
          webhookUrl: "https://hooks.example.com/batches",
          items: [
            { imageUrl: at("/photo/1.jpg"), metadata: { postId: 7 } },
            { imageUrl: at("/photo/2.jpg"), schema: `{"title":"title","1":"one"}` },
            { imageUrl: at("/photo/3.jpg"), keywords: "fail" },
            { imageUrl: at("/photo/4.jpg"), schema: "not json" },
            { keywords: "no image" },
            { imageUrl: at("/missing.jpg") },
            { imageUrl: `http://127.0.0.1:${images.port}/photo/5.jpg` }
          ]
        })
        const id = (created.body as { id: string }).id
        expect(created).toMatchObject({ status: 202, location: `/api/batches/${id}`, body: { id, counts: { total: 7 } } })
        const batch = yield* ended(id, c.token)
        expect(batch.status).toBe("completed")
        expect(batch.counts).toEqual({ total: 7, queued: 0, running: 0, succeeded: 2, failed: 5, canceled: 0 })
        expect(batch.items).toEqual([
          {
            index: 0, state: "succeeded", status: 200, metadata: { postId: 7 },
            result: { title: "title value", alternativeText: "alternativeText value", caption: "caption value", alt_text: "alternativeText value" },
            language: "en", describer: "scripted"
          },
          { index: 1, state: "succeeded", status: 200, result: { "1": "1 value", title: "title value" }, language: "en", describer: "scripted" },
          { index: 2, state: "failed", status: 500, error: "Internal Server Error" },
          { index: 3, state: "failed", status: 400, error: expect.stringMatching(/^Invalid schema: /) },
          { index: 4, state: "failed", status: 400, error: "Bad Request, No file uploaded" },
          { index: 5, state: "failed", status: 400, error: "Bad Request, the image at imageUrl could not be fetched: the server answered 404" },
          { index: 6, state: "failed", status: 400, error: "Bad Request, imageUrl must be a public http or https URL" }
        ])
        expect(yield* c.balance).toBe(8)
        const usage = yield* c.usage
        expect(usage.filter((row) => row.state === "charged")).toHaveLength(2)
        // The model ran for the three items that got that far, once each.
        expect((yield* Ref.get(calls)) - before).toBe(3)
        expect(yield* Ref.get(queuedWebhooks)).toEqual([{
          accountId: c.accountId,
          url: "https://hooks.example.com/batches",
          event: { type: "batch.completed", data: { batchId: id, status: "completed", counts: batch.counts } }
        }])
      }))

    it.effect("echoes each item's metadata as sent, an id past 2^53 included, and runs a schema object's fields in the order sent", () =>
      Effect.gen(function* () {
        const c = yield* customer(1)
        const created = yield* call("POST", "/api/batches", {
          key: c.token,
          body: `{"items":[{"imageUrl":${JSON.stringify(at("/photo/id.jpg"))},"schema":{"title":"t","2":"b","1":"a"},"metadata":{"postId": 1850000000000000001}}]}`
        })
        const id = (created.body as { id: string }).id
        yield* ended(id, c.token)
        const seen = yield* call("GET", `/api/batches/${id}`, { key: c.token })
        expect((yield* Ref.get(fieldNames)).at(-1)).toEqual(["title", "2", "1"])
        expect(seen.text).toContain(`"metadata":{"postId":1850000000000000001}`)
      }))

    it.effect("with itemEvents, one batch.item.completed per item before the batch's event", () =>
      Effect.gen(function* () {
        const c = yield* customer(5)
        yield* Ref.set(queuedWebhooks, [])
        const created = yield* post(c.token, { webhookUrl: "https://hooks.example.com/b", itemEvents: true, items: [{ imageUrl: at("/photo/a.jpg") }, {}] })
        const id = (created.body as { id: string }).id
        yield* ended(id, c.token)
        const events = (yield* Ref.get(queuedWebhooks)).map((webhook) => webhook.event)
        expect(events.map((event) => event.type).sort()).toEqual(["batch.completed", "batch.item.completed", "batch.item.completed"])
        expect(events.at(-1)?.type).toBe("batch.completed")
        // An item's data is JSON text, spliced in as stored (domain/batch.ts).
        const itemData = events.flatMap((event) => (event.data instanceof JsonText ? [JSON.parse(event.data.text)] : []))
        expect(itemData).toContainEqual({ batchId: id, index: 1, state: "failed", status: 400, error: "Bad Request, No file uploaded" })
      }))

    it.effect("an account without credits may create a batch; its items fail alone, uncharged, with check 2's 401", () =>
      Effect.gen(function* () {
        const c = yield* customer(0)
        const created = yield* post(c.token, { items: [{ imageUrl: at("/photo/z.jpg") }] })
        const batch = yield* ended((created.body as { id: string }).id, c.token)
        expect(batch.items).toEqual([{ index: 0, state: "failed", status: 401, error: "Unauthorized, no credit left" }])
        expect(yield* c.balance).toBe(0)
      }))

    it.effect("Idempotency-Key: a retry of the same batch gets that batch again (Idempotent-Replayed), nothing queued twice; another batch with the key is a 422; an invalid key a 400", () =>
      Effect.gen(function* () {
        const c = yield* customer(5)
        const body = JSON.stringify({ items: [{ imageUrl: at("/photo/k0.jpg") }, { imageUrl: at("/photo/k1.jpg") }] })
        const send = (key: string, text: string) => call("POST", "/api/batches", { key: c.token, body: text, headers: { "idempotency-key": key } })
        // Sent twice at once, as a client retrying a lost answer might: the account's creates take turns.
        const [first, again] = yield* Effect.all([send("batch-1", body), send("batch-1", body)], { concurrency: 2 })
        const id = (first.body as { id: string }).id
        expect([first.status, again.status, (again.body as { id: string }).id]).toEqual([202, 202, id])
        expect([first.replayed, again.replayed].sort()).toEqual(["true", undefined].sort())
        expect(again.location).toBe(`/api/batches/${id}`)
        // Whitespace aside, the same batch.
        expect((yield* send("batch-1", JSON.stringify(JSON.parse(body), null, 2))).body).toMatchObject({ id })
        const other = yield* send("batch-1", JSON.stringify({ items: [{ imageUrl: at("/photo/k2.jpg") }] }))
        expect([other.status, other.body]).toEqual([422, { error: "Idempotency-Key was used with a different request" }])
        const invalid = yield* send("k".repeat(256), body)
        expect([invalid.status, invalid.body]).toEqual([400, { error: "Bad Request, Idempotency-Key must be 1 to 255 printable characters" }])
        const listed = yield* call("GET", "/api/batches", { key: c.token })
        expect((listed.body as { batches: ReadonlyArray<{ id: string }> }).batches.map((batch) => batch.id)).toEqual([id])
        yield* ended(id, c.token)
        expect(yield* c.balance).toBe(3)
        // Another key: another batch.
        const another = yield* send("batch-2", body)
        expect(another.body).not.toMatchObject({ id })
        yield* ended((another.body as { id: string }).id, c.token)
      }))

    it.effect("accounts take turns: another account's item runs before the rest of two long queues that held every worker", () =>
      Effect.gen(function* () {
        const [first, second, third] = [yield* customer(10), yield* customer(10), yield* customer(10)]
        yield* Ref.set(gate, yield* Deferred.make<void>())
        yield* Ref.set(contexts, [])
        const slowItems = (context: string) =>
          Array.from({ length: 4 }, (_, n) => ({ imageUrl: at(`/photo/${context}-${n}.jpg`), keywords: "slow", context }))
        // Only this test's calls (another test's items may still be ending).
        const ours = Effect.map(Ref.get(contexts), (seen) => seen.filter((context) => ["first", "second", "third"].includes(context)))
        const entered = (n: number) => ours.pipe(Effect.filterOrFail((seen) => seen.length >= n), Effect.retry(Schedule.spaced("10 millis")))
        // Two of the first account's (its bound), then one of the second's: the three workers held at the gate.
        const a = yield* post(first.token, { items: slowItems("first") })
        yield* entered(2)
        const b = yield* post(second.token, { items: slowItems("second") })
        yield* entered(3)
        const c = yield* post(third.token, { items: [{ imageUrl: at("/photo/third.jpg"), context: "third" }] })
        yield* Deferred.succeed(yield* Ref.get(gate), undefined)
        for (const [created, key] of [[a, first.token], [b, second.token], [c, third.token]] as const) {
          yield* ended((created.body as { id: string }).id, key)
        }
        const order = yield* ours
        expect(order.slice(0, 3)).toEqual(["first", "first", "second"])
        // Served by one of the next three claims (by their oldest item, it came last: the 9th).
        expect(order.indexOf("third")).toBeLessThan(6)
      }))

    it.effect("refuses what is not a batch with a 400 naming the fault, and callers as /api/describe does (first)", () =>
      Effect.gen(function* () {
        const c = yield* customer(1)
        const many = JSON.stringify({ items: Array.from({ length: 1001 }, () => ({ imageUrl: at("/photo/x.jpg") })) })
        expect(yield* failing(c.token, "{not json")).toEqual(error(400, "Bad Request, the body must be JSON"))
        expect(yield* failing(c.token, "[]")).toEqual(error(400, "Bad Request, items must be an array of 1 to 1000 items"))
        expect(yield* failing(c.token, `{"items":[]}`)).toEqual(error(400, "Bad Request, items must be an array of 1 to 1000 items"))
        expect(yield* failing(c.token, many)).toEqual(error(400, "Bad Request, items must be an array of 1 to 1000 items"))
        expect(yield* failing(c.token, `{"items":[{},"x"]}`)).toEqual(error(400, "Bad Request, items[1] must be an object"))
        expect(yield* failing(c.token, `{"items":[{"imageUrl":3}]}`)).toEqual(error(400, "Bad Request, items[0].imageUrl must be a string"))
        expect(yield* failing(c.token, `{"items":[{"schema":[1]}]}`)).toEqual(error(400, "Bad Request, items[0].schema must be a string or an object"))
        // Refused before it is stored: a user name or password would sit in the item's row.
        expect(yield* failing(c.token, JSON.stringify({ items: [{}, { imageUrl: " https://user:pw@images.test/a.jpg" }] })))
          .toEqual(error(400, "Bad Request, items[1].imageUrl must be a URL without a user name or password"))
        expect(yield* failing(c.token, JSON.stringify({ items: [{ metadata: "x".repeat(1100) }] })))
          .toEqual(error(400, "Bad Request, items[0].metadata must be at most 1024 bytes of JSON"))
        // Nested deep (a million levels took 0.8 s of the request thread to refuse): refused unread.
        const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`
        const tooDeep = error(400, "Bad Request, the body must be JSON nested at most 64 levels deep")
        expect(yield* failing(c.token, `{"items":[{"metadata":${deep(999_000)}}]}`)).toEqual(tooDeep)
        expect(yield* failing(c.token, `{"items":[{"schema":{"a":${deep(200_000)}}}]}`)).toEqual(tooDeep)
        expect(yield* failing(c.token, `{"items":[{"metadata":${deep(62)}}]}`)).toEqual(tooDeep)
        expect(yield* failing(c.token, `{"items":[{"metadata":${deep(61)}}]} x`)).toEqual(error(400, "Bad Request, the body must be JSON"))
        expect(yield* failing(c.token, `{"items":[{}],"webhookUrl":"ftp://x"}`)).toEqual(error(400, "Bad Request, webhookUrl must be an http or https URL"))
        expect(yield* failing(c.token, `{"items":[{}],"itemEvents":"yes"}`)).toEqual(error(400, "Bad Request, itemEvents must be true or false"))
        expect(yield* failing(c.token, JSON.stringify({ items: [{ context: "x".repeat(2.1 * 1024 * 1024) }] })))
          .toEqual(error(413, "Request too large: the maximum is 2 MB"))
        expect(yield* failing("not-a-key", "{not json")).toEqual(error(401, "Unauthorized, invalid token"))
        const missing = yield* call("POST", "/api/batches", { body: "{not json" })
        expect({ status: missing.status, body: missing.body }).toEqual(error(401, "Unauthorized, missing Authorization header"))
        expect(yield* c.balance).toBe(1)
      }))

    it.effect("lists the account's batches newest first, a page at a time; another account's batch and a non-UUID are 404s, and no cursor", () =>
      Effect.gen(function* () {
        const c = yield* customer(0)
        const other = yield* customer(0)
        const ids: Array<string> = []
        for (let n = 0; n < 3; n++) ids.push(((yield* post(c.token, { items: [{}] })).body as { id: string }).id)
        const first = yield* call("GET", "/api/batches?limit=2", { key: c.token })
        const page = first.body as { batches: ReadonlyArray<{ id: string }>; next: string }
        expect([first.status, page.batches.map((batch) => batch.id)]).toEqual([200, [ids[2], ids[1]]])
        const second = (yield* call("GET", page.next, { key: c.token })).body
        expect(second).toMatchObject({ batches: [{ id: ids[0] }], next: null })
        expect((yield* call("GET", "/api/batches", { key: other.token })).body).toEqual({ batches: [], next: null })
        expect(yield* Effect.map(call("GET", "/api/batches?limit=0", { key: c.token }), (s) => s.body))
          .toEqual({ error: "Bad Request, limit must be a whole number from 1 to 100" })
        // A cursor that is none of the account's batches is refused: an empty page would read as the last.
        for (const before of ["garbage", ids[0], "00000000-0000-4000-8000-000000000000"]) {
          const seen = yield* call("GET", `/api/batches?before=${before}`, { key: before === ids[0] ? other.token : c.token })
          expect([before, seen.status, seen.body])
            .toEqual([before, 400, { error: "Bad Request, before must be the id of one of the account's batches, as in next" }])
        }
        for (const [method, path] of [["GET", `/api/batches/${ids[0]}`], ["DELETE", `/api/batches/${ids[0]}`], ["GET", "/api/batches/not-a-uuid"]] as const) {
          const seen = yield* call(method, path, { key: other.token })
          expect([method, path, seen.status, seen.body]).toEqual([method, path, 404, { error: "Batch not found" }])
        }
      }))

    it.effect("DELETE cancels the items not started; those running finish and are charged; the batch ends canceled", () =>
      Effect.gen(function* () {
        const c = yield* customer(10)
        yield* Ref.set(queuedWebhooks, [])
        const open = yield* Deferred.make<void>()
        yield* Ref.set(gate, open)
        const created = yield* post(c.token, {
          webhookUrl: "https://hooks.example.com/c",
          items: Array.from({ length: 5 }, (_, n) => ({ imageUrl: at(`/photo/slow-${n}.jpg`), keywords: "slow" }))
        })
        const id = (created.body as { id: string }).id
        // Two run (BATCH_ACCOUNT_CONCURRENCY), held at the model's gate; three wait.
        yield* call("GET", `/api/batches/${id}`, { key: c.token }).pipe(
          Effect.filterOrFail((seen) => (seen.body as { counts: { running: number } }).counts.running === 2),
          Effect.retry(Schedule.spaced("20 millis"))
        )
        const canceled = yield* call("DELETE", `/api/batches/${id}`, { key: c.token })
        expect(canceled).toMatchObject({ status: 200, body: { id, status: "canceled", completedAt: null, counts: { running: 2, canceled: 3 } } })
        yield* Deferred.succeed(open, undefined)
        const batch = yield* ended(id, c.token)
        expect([batch.status, batch.counts]).toEqual(["canceled", { total: 5, queued: 0, running: 0, succeeded: 2, failed: 0, canceled: 3 }])
        expect(yield* c.balance).toBe(8)
        expect((yield* Ref.get(queuedWebhooks)).map((webhook) => webhook.event)).toEqual([
          { type: "batch.completed", data: { batchId: id, status: "canceled", counts: batch.counts } }
        ])
        // A second DELETE changes nothing.
        expect((yield* call("DELETE", `/api/batches/${id}`, { key: c.token })).body).toMatchObject({ status: "canceled", counts: batch.counts })
      }))
  })
}

// A credit wait of 300 ms, which a credit held at the model's gate outlasts.
const shortCreditWait = batchServicesOn(backends[0]!, model).pipe(Layer.provide(Layer.succeed(CreditWait, Duration.millis(300))))
layer(serverWith(shortCreditWait), { excludeTestServices: true })("Batches' items while the account's credits are held", (it) => {
  it.effect("an item finding every credit held by the account's running items waits in the queue (no 401): it runs once the credit comes back", () =>
    Effect.gen(function* () {
      const c = yield* customer(1)
      const open = yield* Deferred.make<void>()
      yield* Ref.set(gate, open)
      const created = yield* post(c.token, {
        items: [{ imageUrl: at("/photo/h0.jpg"), keywords: "slow-fail" }, { imageUrl: at("/photo/h1.jpg") }, { imageUrl: at("/photo/h2.jpg") }]
      })
      // The first holds the only credit at the gate for three credit waits, then fails: the credit comes back.
      yield* Effect.sleep("1 second")
      yield* Deferred.succeed(open, undefined)
      const batch = yield* ended((created.body as { id: string }).id, c.token)
      expect(batch.items.map((item) => [item.index, item.state, item.status])).toEqual([
        [0, "failed", 500], [1, "succeeded", 200], [2, "failed", 401]
      ])
      expect(yield* c.balance).toBe(0)
    }))
})

// No workers: what is queued stays queued, so the account's bound on queued items is reached.
layer(serverWith(batchServicesOn(backends[0]!, model, 0)), { excludeTestServices: true })("Batches' queue bound", (it) => {
  it.effect("an account with 10,000 items queued gets a 429 for more, nothing queued; canceling makes room", () =>
    Effect.gen(function* () {
      const c = yield* customer(0)
      const full = { items: Array.from({ length: 1000 }, (_, n) => ({ imageUrl: at(`/photo/${n}.jpg`) })) }
      const ids: Array<string> = []
      for (let n = 0; n < 10; n++) ids.push(((yield* post(c.token, full)).body as { id: string }).id)
      const refused = yield* post(c.token, { items: [{ imageUrl: at("/photo/x.jpg") }] })
      expect({ status: refused.status, body: refused.body })
        .toEqual(error(429, "Too Many Requests, an account may have at most 10000 items queued"))
      expect(((yield* call("GET", "/api/batches?limit=100", { key: c.token })).body as { batches: ReadonlyArray<unknown> }).batches).toHaveLength(10)
      yield* call("DELETE", `/api/batches/${ids[0]}`, { key: c.token })
      expect((yield* post(c.token, { items: [{ imageUrl: at("/photo/x.jpg") }] })).status).toBe(202)
    }), { timeout: 120_000 })
})

// Two creates of one account at once must not both pass the count (PostgreSQL runs them in parallel).
for (const backend of backends) {
  layer(serverWith(batchServicesOn(backend, model, 0)), { excludeTestServices: true })(`Batches' queue bound, concurrent creates (${backend.name})`, (it) => {
    it.effect("with 9,000 items queued, of two 1,000-item batches sent at once exactly one is queued", () =>
      Effect.gen(function* () {
        const c = yield* customer(0)
        const full = { items: Array.from({ length: 1000 }, (_, n) => ({ imageUrl: at(`/photo/${n}.jpg`) })) }
        for (let n = 0; n < 9; n++) expect((yield* post(c.token, full)).status).toBe(202)
        const both = yield* Effect.all([post(c.token, full), post(c.token, full)], { concurrency: 2 })
        expect(both.map((answer) => answer.status).sort()).toEqual([202, 429])
      }), { timeout: 120_000 })
  })
}
