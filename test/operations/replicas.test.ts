import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { freshPostgresUrl, postgresSkipReason, postgresUrl } from "../support/database.ts"
import { jpeg } from "../support/describe.ts"
import { cliOk, getTokens, startService, tempDataDir } from "../support/process.ts"

const describeUpload = (url: string, key: string) =>
  Effect.promise(async () => {
    const form = new FormData()
    form.append("image", new Blob([jpeg]), "photo.jpg")
    const response = await fetch(`${url}/api/describe`, { method: "POST", body: form, headers: { authorization: `Bearer ${key}` } })
    return response.status
  })

const serverUrl = postgresUrl
if (serverUrl) {
  describe("two service processes on one PostgreSQL", () => {
    it.scopedLive("agree at once on keys, deletions and balances", () =>
      Effect.gen(function* () {
        const database = yield* freshPostgresUrl(serverUrl)
        const env = { DATABASE_URL: database.url, DATA_DIR: yield* tempDataDir }
        const [a, b] = yield* Effect.all([startService(env), startService(env)], { concurrency: 2 })
        const account = JSON.parse(yield* cliOk(env, "account", "create", "--name", "Shop", "--credits", "3")) as { id: string }
        const { id: keyId, key } = JSON.parse(yield* cliOk(env, "key", "create", account.id)) as { id: string; key: string }

        // A key made once works on both (they share the signing secret through the database).
        const credits = (url: string) => getTokens(url, key).pipe(Effect.map((r) => [r.status, (r.body as { user?: { credits: number } }).user?.credits]))
        expect([yield* credits(a.url), yield* credits(b.url)]).toEqual([[200, 3], [200, 3]])

        // A credit used on one is gone on the other.
        expect(yield* describeUpload(a.url, key)).toBe(200)
        expect(yield* credits(b.url)).toEqual([200, 2])
        expect(yield* describeUpload(b.url, key)).toBe(200)
        expect(yield* credits(a.url)).toEqual([200, 1])

        // A deletion revokes the key on both, on the very next request.
        yield* cliOk(env, "key", "delete", keyId)
        const revoked = { status: 401, body: { error: "Unauthorized, invalid token" } }
        expect(yield* getTokens(a.url, key)).toEqual(revoked)
        expect(yield* getTokens(b.url, key)).toEqual(revoked)
      }), 120_000)
  })
} else {
  describe.skip(postgresSkipReason, () => it("two service processes on one PostgreSQL", () => {}))
}
