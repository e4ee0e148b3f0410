/**
 * The Batches pages (README, "Batches"): in the navigation, the account's batches with their
 * progress, a batch's items with their result or error and metadata; another account's batch is
 * not found.
 */
import { expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Logger, LogLevel, Option } from "effect"
import { AccountId } from "../../src/domain/ids.ts"
import { Batches } from "../../src/services/Batches.ts"
import { pglite } from "../support/database.ts"
import { accountOf, baseUrl, onPage, signedUp } from "../support/dashboard.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)

/** A batch of three items for the account of `email`, the first succeeded and the second failed (no workers run here). */
const batchOf = (email: string) =>
  Effect.gen(function* () {
    const accountId = AccountId.make(yield* accountOf(email))
    const batch = yield* Effect.flatMap(Batches, (batches) => batches.create(accountId, null, {
      items: [{ fields: { imageUrl: "https://example.com/a.jpg" }, metadata: `{"postId":7}` }, { fields: {}, metadata: undefined }, { fields: {}, metadata: undefined }],
      webhookUrl: undefined,
      itemEvents: false
    }, Option.none()).pipe(Effect.map(({ summary }) => summary)))
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE batch_items SET state = 'succeeded', status = 200, result = '{"title":"A <b>bold</b> bike"}' WHERE batch_id = ${batch.id} AND position = 0`
    yield* sql`UPDATE batch_items SET state = 'failed', status = 400, error = 'Bad Request, No file uploaded' WHERE batch_id = ${batch.id} AND position = 1`
    return batch.id
  }).pipe(Effect.orDie)

layer(serverWith(servicesOn(pglite)).pipe(Layer.provide(quiet)), { excludeTestServices: true })("the Batches pages", (it) => {
  it.effect("list the account's batches with their progress, linked from the navigation; a batch shows each item", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "batches@example.com" })
      const empty = yield* browser.get("/dashboard/batches")
      expect(empty.status).toBe(200)
      onPage(empty.body, `<a href="/dashboard/batches" aria-current="page">Batches</a>`, "No batches yet.")
      const id = yield* batchOf("batches@example.com")
      const list = yield* browser.get("/dashboard/batches")
      onPage(list.body, `<a href="/dashboard/batches/${id}">`, "Running", "2 / 3")
      const one = yield* browser.get(`/dashboard/batches/${id}`)
      expect(one.status).toBe(200)
      onPage(one.body, id, "2 / 3: 1 succeeded, 1 failed, 0 canceled", "{&quot;title&quot;:&quot;A &lt;b&gt;bold&lt;/b&gt; bike&quot;}",
        "400 Bad Request, No file uploaded", "Not yet", "{&quot;postId&quot;:7}")
    }))

  it.effect("another account's batch, or an id that is none, is not found", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      yield* signedUp(base, { email: "owner@example.com" })
      const id = yield* batchOf("owner@example.com")
      const other = yield* signedUp(base, { email: "other@example.com" })
      expect((yield* other.get(`/dashboard/batches/${id}`)).status).toBe(404)
      expect((yield* other.get("/dashboard/batches/nope")).status).toBe(404)
      expect((yield* other.get("/dashboard/batches")).body).toContain("No batches yet.")
    }))
})
