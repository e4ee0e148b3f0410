import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Clock, Effect, TestClock } from "effect"
import { SignJWT, UnsecuredJWT } from "jose"
import { Accounts } from "../../src/services/Accounts.ts"
import { ApiKeys } from "../../src/services/ApiKeys.ts"
import { backends, postgresSkipReason, postgresUrl } from "../support/database.ts"
import { testSecret } from "../support/keys.ts"
import { servicesOn } from "../support/services.ts"
import { AccountId, decodeKeyId } from "../../src/domain/ids.ts"

const day = 24 * 60 * 60 * 1000

const accountWithKey = (expiresInMs = 365 * day, name?: string) =>
  Effect.gen(function* () {
    const account = yield* Accounts.pipe(Effect.flatMap((accounts) => accounts.create({ name: "Ada" })))
    const now = yield* TestClock.currentTimeMillis
    const created = yield* ApiKeys.pipe(
      Effect.flatMap((keys) => keys.create(account.id, { name, expiredAt: new Date(now + expiresInMs) }))
    )
    return { account, ...created }
  })

const authenticate = (header: string | undefined) =>
  ApiKeys.pipe(Effect.flatMap((keys) => keys.authenticate(header)))

const failureOf = (header: string | undefined) => authenticate(header).pipe(Effect.flip, Effect.map((e) => e._tag))

for (const backend of backends) {
  layer(servicesOn(backend))(`ApiKeys on ${backend.name}`, (it) => {
    it.effect("a key created for an account authenticates it and records its use", () =>
      Effect.gen(function* () {
        const { account, key, token } = yield* accountWithKey(365 * day, "shop backend")
        yield* TestClock.adjust(1000)
        const found = yield* authenticate(`Bearer ${token}`)
        expect(found.account.id).toBe(account.id)
        expect(found.key.id).toBe(key.id)
        expect(found.key.name).toBe("shop backend")
        expect(found.key.lastUsedAt?.getTime()).toBe(1000)
      }))

    it.effect("a key is `imd_` and a signed token; its last four characters are kept; the bare token (a key made before the prefix) authenticates too", () =>
      Effect.gen(function* () {
        const { key, token } = yield* accountWithKey()
        expect(token).toMatch(/^imd_[\w-]+\.[\w-]+\.[\w-]+$/)
        const [listed] = yield* ApiKeys.pipe(Effect.flatMap((keys) => keys.list(key.accountId)))
        expect(listed?.lastFour).toBe(token.slice(-4))
        for (const header of [`Bearer ${token}`, `Bearer ${token.slice(4)}`]) expect((yield* authenticate(header)).key.id).toBe(key.id)
        expect(yield* failureOf(`Bearer imd_${token}`)).toBe("ApiKeyInvalid")
      }))

    it.effect("a key's last use is recorded to the minute: a use within a minute of the recorded one keeps it", () =>
      Effect.gen(function* () {
        const { account, token } = yield* accountWithKey()
        const lastUse = () => authenticate(`Bearer ${token}`).pipe(Effect.map(({ key }) => key.lastUsedAt?.getTime()))
        // The clock is shared with the other tests of this layer: times are taken from it.
        yield* TestClock.adjust(1000)
        const first = yield* Clock.currentTimeMillis
        expect(yield* lastUse()).toBe(first)
        yield* TestClock.adjust(59_000)
        expect(yield* lastUse()).toBe(first)
        yield* TestClock.adjust(1000)
        expect(yield* lastUse()).toBe(first + 60_000)
        yield* TestClock.adjust(30_000)
        expect(yield* lastUse()).toBe(first + 60_000)
        // What the dashboard and the CLI list: the row as written.
        const listed = yield* ApiKeys.pipe(Effect.flatMap((keys) => keys.list(account.id)))
        expect(listed.map((key) => key.lastUsedAt?.getTime())).toStrictEqual([first + 60_000])
      }))

    it.effect("a last use that cannot be written (a full disk) still authenticates: the key's use is a read", () =>
      Effect.gen(function* () {
        const { account, token } = yield* accountWithKey()
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(`CREATE FUNCTION refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device'; END $$`)
        yield* sql.unsafe("CREATE TRIGGER refuse_write BEFORE UPDATE ON api_keys FOR EACH ROW EXECUTE FUNCTION refuse_write()")
        const found = yield* authenticate(`Bearer ${token}`).pipe(
          Effect.ensuring(Effect.orDie(Effect.zip(sql.unsafe("DROP TRIGGER refuse_write ON api_keys"), sql.unsafe("DROP FUNCTION refuse_write()"))))
        )
        expect([found.account.id, found.key.lastUsedAt]).toEqual([account.id, null])
      }))

    it.effect("no header, or one that does not start with `Bearer `, is a missing key", () =>
      Effect.gen(function* () {
        const { token } = yield* accountWithKey()
        expect(yield* failureOf(undefined)).toBe("ApiKeyMissing")
        expect(yield* failureOf(`bearer ${token}`)).toBe("ApiKeyMissing")
        expect(yield* failureOf(`Basic ${token}`)).toBe("ApiKeyMissing")
        expect(yield* failureOf(token)).toBe("ApiKeyMissing")
      }))

    it.effect("a truncated key, another secret's key, `alg: none` and another algorithm are invalid", () =>
      Effect.gen(function* () {
        const { account, key, token } = yield* accountWithKey()
        const claims = { userId: account.id }
        const exp = Math.floor(key.expiredAt.getTime() / 1000)
        const otherSecret = yield* Effect.promise(() =>
          new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setJti(key.id).setExpirationTime(exp)
            .sign(new TextEncoder().encode("another-secret-another-secret-another")))
        const unsigned = new UnsecuredJWT(claims).setJti(key.id).setExpirationTime(exp).encode()
        const hs512 = yield* Effect.promise(() =>
          new SignJWT(claims).setProtectedHeader({ alg: "HS512" }).setJti(key.id).setExpirationTime(exp).sign(testSecret))
        expect(yield* failureOf(`Bearer ${token.slice(0, -5)}`)).toBe("ApiKeyInvalid")
        expect(yield* failureOf(`Bearer ${token.slice(0, 40)}`)).toBe("ApiKeyInvalid")
        expect(yield* failureOf("Bearer ")).toBe("ApiKeyInvalid")
        expect(yield* failureOf(`Bearer ${otherSecret}`)).toBe("ApiKeyInvalid")
        expect(yield* failureOf(`Bearer ${unsigned}`)).toBe("ApiKeyInvalid")
        expect(yield* failureOf(`Bearer ${hs512}`)).toBe("ApiKeyInvalid")
      }))

    it.effect("a key is accepted until its expiration date and rejected after it", () =>
      Effect.gen(function* () {
        const { token } = yield* accountWithKey(day)
        yield* TestClock.adjust(day - 1000)
        yield* authenticate(`Bearer ${token}`)
        yield* TestClock.adjust(2000)
        expect(yield* failureOf(`Bearer ${token}`)).toBe("ApiKeyInvalid")
      }))

    it.effect("a token signed by the service without a userId is malformed", () =>
      Effect.gen(function* () {
        const session = yield* Effect.promise(() =>
          new SignJWT({ purpose: "session" }).setProtectedHeader({ alg: "HS256" }).setExpirationTime("1h").sign(testSecret))
        expect(yield* failureOf(`Bearer ${session}`)).toBe("ApiKeyMalformed")
      }))

    it.effect("a deleted key is refused on the very next request, and cannot be deleted twice", () =>
      Effect.gen(function* () {
        const { account, key, token } = yield* accountWithKey()
        const keys = yield* ApiKeys
        yield* keys.authenticate(`Bearer ${token}`)
        yield* keys.remove(key.id)
        expect(yield* failureOf(`Bearer ${token}`)).toBe("ApiKeyRevoked")
        expect((yield* Effect.flip(keys.remove(key.id)))._tag).toBe("KeyNotFound")
        expect((yield* Effect.flip(decodeKeyId("not-a-uuid").pipe(Effect.flatMap(keys.remove))))._tag).toBe("KeyNotFound")
        expect(yield* keys.list(account.id)).toEqual([])
      }))

    it.effect("a valid key whose account was deleted finds no user", () =>
      Effect.gen(function* () {
        const { account, token } = yield* accountWithKey()
        yield* Accounts.pipe(Effect.flatMap((accounts) => accounts.remove(account.id)))
        expect(yield* failureOf(`Bearer ${token}`)).toBe("AccountNotFound")
      }))

    it.effect("keys can only be made for an existing account, and are listed for it", () =>
      Effect.gen(function* () {
        const keys = yield* ApiKeys
        const missing = yield* Effect.flip(keys.create(AccountId.make(crypto.randomUUID()), { expiredAt: new Date(day) }))
        expect(missing._tag).toBe("AccountNotFound")
        const { account, key } = yield* accountWithKey(day, "first")
        yield* TestClock.adjust(1000)
        const second = yield* keys.create(account.id, { expiredAt: new Date(2 * day) })
        expect((yield* keys.list(account.id)).map((k) => [k.id, k.name])).toEqual([[key.id, "first"], [second.key.id, null]])
      }))
  })
}

if (!postgresUrl) describe.skip(postgresSkipReason, () => it("ApiKeys on PostgreSQL", () => {}))
