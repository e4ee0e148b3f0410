import { describe, expect, it, layer } from "@effect/vitest"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { SignJWT } from "jose"
import { Subscription } from "../../src/domain/models.ts"
import { Accounts } from "../../src/services/Accounts.ts"
import { ApiKeys } from "../../src/services/ApiKeys.ts"
import { Credits } from "../../src/services/Credits.ts"
import { backends, postgresSkipReason, postgresUrl } from "../support/database.ts"
import { forgeKey, testSecret } from "../support/keys.ts"
import { getTokens as getTokensAt, seen, serverWith, tokensPaths } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const json = "application/json"
const error = (status: number, message: string) => ({ status, contentType: json, body: { error: message } })

const setup = (options: { readonly credits?: number; readonly keyName?: string } = {}) =>
  Effect.gen(function* () {
    const account = yield* Effect.flatMap(Accounts, (a) => a.create({ name: "Ada", email: "ada@example.com" }))
    if (options.credits) yield* Effect.flatMap(Credits, (c) => c.grant(account.id, options.credits!, "purchase"))
    const expiredAt = new Date("2030-01-01T00:00:00.000Z")
    const created = yield* Effect.flatMap(ApiKeys, (k) => k.create(account.id, { name: options.keyName, expiredAt }))
    return { account, ...created }
  })

// `/api/describe/verify` is a compatibility route that answers exactly as `/api/tokens` (README): every case runs on both.
for (const backend of backends) for (const path of tokensPaths) {
  const getTokens = (key?: string) => getTokensAt(key, path)
  layer(serverWith(servicesOn(backend)), { excludeTestServices: true })(`GET ${path} on ${backend.name}`, (it) => {
    it.effect("200: the account status of §2.3, with no subscription, using no credit", () =>
      Effect.gen(function* () {
        const { account, key, token } = yield* setup({ credits: 7, keyName: "CMS plugin" })
        const first = yield* getTokens(token)
        expect(first).toEqual({
          status: 200,
          contentType: json,
          body: {
            subscription: { isSubscribed: false },
            token: { name: "CMS plugin", createdAt: key.createdAt.toISOString(), expiredAt: "2030-01-01T00:00:00.000Z" },
            user: {
              credits: 7,
              id: account.id,
              registeredAt: account.registeredAt.toISOString(),
              name: "CMS plugin",
              email: "Not available"
            },
            success: true
          }
        })
        expect(Object.keys(first.body as object)).toEqual(["subscription", "token", "user", "success"])
        expect((yield* getTokens(token)).body).toEqual(first.body)
      }))

    it.effect("200 with a subscription; a key without a name reads `User` and a null token name", () =>
      Effect.gen(function* () {
        const { account, token } = yield* setup()
        yield* Effect.flatMap(Accounts, (a) =>
          a.setSubscription(account.id, new Subscription({
            planName: "Pro",
            planDescription: "<p>1,000 images a month</p>",
            status: "past_due",
            renewsAt: new Date("2026-12-01T00:00:00.000Z"),
            endsAt: null
          })))
        const { status, body } = yield* getTokens(token)
        expect(status).toBe(200)
        expect(body).toMatchObject({
          subscription: {
            isSubscribed: true,
            plan: { name: "Pro", description: "<p>1,000 images a month</p>" },
            status: "past_due",
            statusFormatted: "Past due",
            renewsAt: "2026-12-01T00:00:00.000Z",
            endsAt: null
          },
          token: { name: null },
          user: { name: "User", credits: 0, email: "Not available" }
        })
        yield* Effect.flatMap(Accounts, (a) => a.clearSubscription(account.id))
        expect((yield* getTokens(token)).body).toMatchObject({ subscription: { isSubscribed: false } })
      }))

    it.effect("an expired subscription, or one whose end date has passed, is no subscription: `isSubscribed` false and nothing else", () =>
      Effect.gen(function* () {
        const { account, token } = yield* setup()
        const subscribed = (status: string, endsAt: Date | null) =>
          Effect.flatMap(Accounts, (a) =>
            a.setSubscription(account.id, new Subscription({ planName: "Pro", planDescription: "", status, renewsAt: null, endsAt }))).pipe(
              Effect.zipRight(getTokens(token)),
              Effect.map(({ body }) => (body as { subscription: unknown }).subscription)
            )
        const past = new Date(Date.now() - 60_000)
        const future = new Date(Date.now() + 86_400_000)
        expect(yield* subscribed("expired", null)).toEqual({ isSubscribed: false })
        expect(yield* subscribed("cancelled", past)).toEqual({ isSubscribed: false })
        expect(yield* subscribed("cancelled", future)).toMatchObject({ isSubscribed: true, status: "cancelled", endsAt: future.toISOString() })
      }))

    it.effect("401 `Missing or invalid authentication token` without a Bearer header", () =>
      Effect.gen(function* () {
        const { token } = yield* setup()
        expect(yield* getTokens()).toEqual(error(401, "Missing or invalid authentication token"))
        const basic = yield* HttpClient.HttpClient.pipe(
          Effect.flatMap((c) => c.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.setHeader("authorization", `Token ${token}`)))),
          Effect.flatMap(seen)
        )
        expect(basic).toEqual(error(401, "Missing or invalid authentication token"))
      }))

    it.effect("401 `Invalid or expired token` for a truncated copy or a key past its expiry", () =>
      Effect.gen(function* () {
        const { token } = yield* setup()
        expect(yield* getTokens(token.slice(0, token.length - 10))).toEqual(error(401, "Invalid or expired token"))
        const { account } = yield* setup()
        const expired = yield* Effect.flatMap(ApiKeys, (k) => k.create(account.id, { expiredAt: new Date(Date.now() - 1000) }))
        expect(yield* getTokens(expired.token)).toEqual(error(401, "Invalid or expired token"))
      }))

    it.effect("a key starts with `imd_`; one made before, without it, keeps working; `imd_` with anything else after is 401 `Invalid or expired token`", () =>
      Effect.gen(function* () {
        const { key, token } = yield* setup()
        expect(token).toMatch(/^imd_eyJ/)
        expect(key.lastFour).toBe(token.slice(-4))
        const bare = token.slice("imd_".length)
        for (const accepted of [token, bare]) expect((yield* getTokens(accepted)).status).toBe(200)
        for (const garbage of ["imd_", "imd_garbage", `imd_${bare.slice(0, -3)}`, `imd_imd_${bare}`, `IMD_${bare}`]) {
          expect(yield* getTokens(garbage)).toEqual(error(401, "Invalid or expired token"))
        }
      }))

    it.effect("401 `Invalid or expired token` for a key signed with the secret but without an expiry", () =>
      Effect.gen(function* () {
        const { account, key } = yield* setup()
        const forever = yield* forgeKey({ userId: account.id, jti: key.id })
        expect(yield* getTokens(forever)).toEqual(error(401, "Invalid or expired token"))
      }))

    it.effect("401 `Invalid or expired token` for an expired key, even re-signed with the secret and a later expiry", () =>
      Effect.gen(function* () {
        const { account } = yield* setup()
        const expired = yield* Effect.flatMap(ApiKeys, (k) => k.create(account.id, { expiredAt: new Date(Date.now() - 1000) }))
        const revived = yield* forgeKey({ userId: account.id, jti: expired.key.id, expiresAt: new Date(Date.now() + 3_600_000) })
        expect(yield* getTokens(revived)).toEqual(error(401, "Invalid or expired token"))
        // The refused key's last use is not recorded.
        const [keyView] = yield* Effect.flatMap(ApiKeys, (k) => k.list(account.id))
        expect(keyView?.lastUsedAt).toBeNull()
      }))

    it.effect("400 `Malformed token: missing userId` for a service-signed token that is not a key", () =>
      Effect.gen(function* () {
        const other = yield* Effect.promise(() =>
          new SignJWT({ purpose: "session" }).setProtectedHeader({ alg: "HS256" }).setExpirationTime("1h")
            .sign(testSecret))
        expect(yield* getTokens(other)).toEqual(error(400, "Malformed token: missing userId"))
      }))

    it.effect("401 `Unauthorized, invalid token` once the key is deleted", () =>
      Effect.gen(function* () {
        const { key, token } = yield* setup()
        expect((yield* getTokens(token)).status).toBe(200)
        yield* Effect.flatMap(ApiKeys, (k) => k.remove(key.id))
        expect(yield* getTokens(token)).toEqual(error(401, "Unauthorized, invalid token"))
      }))

    it.effect("404 `User not found` when the account of a valid key is gone", () =>
      Effect.gen(function* () {
        const { account, token } = yield* setup()
        yield* Effect.flatMap(Accounts, (a) => a.remove(account.id))
        expect(yield* getTokens(token)).toEqual(error(404, "User not found"))
      }))
  })

  layer(serverWith(servicesOn(backend)), { excludeTestServices: true })(`GET ${path} on a failing ${backend.name}`, (it) => {
    it.effect("500 `Server error` for an unexpected server-side failure", () =>
      Effect.gen(function* () {
        const { token } = yield* setup()
        const sql = yield* SqlClient.SqlClient
        yield* sql`DROP TABLE subscriptions`
        expect(yield* getTokens(token)).toEqual(error(500, "Server error"))
      }))
  })
}

if (!postgresUrl) describe.skip(postgresSkipReason, () => it("GET /api/tokens on PostgreSQL", () => {}))

