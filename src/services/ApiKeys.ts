/**
 * API keys (spec §5, §7.2): tokens signed by the service (`Signer`), carrying the account
 * (`userId`), the key id (`jti`) and the expiry, behind the prefix `imd_` that tells people and
 * secret scanners what it is. A key is also a database row, so deleting it from the dashboard
 * revokes it on the very next request.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AccountNotFound, ApiKeyInvalid, ApiKeyMalformed, ApiKeyMissing, ApiKeyRevoked, KeyNotFound } from "../domain/errors.ts"
import { Account, ApiKey } from "../domain/models.ts"
import { Accounts } from "./Accounts.ts"
import { explained } from "./messageOf.ts"
import { Signer } from "./Signer.ts"
import { AccountId, KeyId } from "../domain/ids.ts"

export interface NewKey {
  readonly name?: string | undefined
  readonly expiredAt: Date
}

const Claims = Schema.Struct({ userId: Schema.String, jti: KeyId })

/** Before every key made since it was introduced; keys made before have none and keep working. */
export const keyPrefix = "imd_"

/** How precisely a key's last use is recorded, in milliseconds. */
const lastUseResolution = 60_000

/** A live key's row and, when the account is not deleted, the account's columns. */
const LiveKeyRow = Schema.Struct({
  ...ApiKey.fields,
  accountName: Schema.NullOr(Schema.String),
  accountEmail: Schema.NullOr(Schema.String),
  accountRegisteredAt: Schema.NullOr(Schema.DateFromSelf),
  accountCredits: Schema.NullOr(Schema.Number)
})

export class ApiKeys extends Effect.Service<ApiKeys>()("ApiKeys", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const accounts = yield* Accounts
    const signer = yield* Signer
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

    const create = (accountId: AccountId, key: NewKey) =>
      Effect.gen(function* () {
        yield* accounts.find(accountId)
        const id = KeyId.make(crypto.randomUUID())
        const createdAt = yield* now
        const signed = yield* signer.sign({ userId: accountId }, { id, issuedAt: createdAt, expiresAt: key.expiredAt })
        const token = `${keyPrefix}${signed}`
        const row = new ApiKey({
          id, accountId, name: key.name ?? null, createdAt, expiredAt: key.expiredAt, deletedAt: null, lastUsedAt: null,
          lastFour: token.slice(-4)
        })
        yield* sql`INSERT INTO api_keys ${sql.insert({ ...row })}`.pipe(Effect.orDie)
        return { key: row, token }
      }).pipe(Effect.withSpan("ApiKeys.create"))

    const listRows = SqlSchema.findAll({
      Request: AccountId,
      Result: ApiKey,
      execute: (accountId) => sql`SELECT * FROM api_keys WHERE account_id = ${accountId} AND deleted_at IS NULL
        ORDER BY created_at, id`
    })

    const list = (accountId: AccountId) =>
      accounts.find(accountId).pipe(Effect.zipRight(Effect.orDie(listRows(accountId))), Effect.withSpan("ApiKeys.list"))

    /** Revokes at once: `authenticate` reads the row on every request. */
    const remove = (keyId: KeyId) =>
      Effect.gen(function* () {
        const deleted = yield* sql`UPDATE api_keys SET deleted_at = ${yield* now} WHERE id = ${keyId} AND deleted_at IS NULL
          RETURNING id`.pipe(Effect.orDie)
        if (deleted.length === 0) return yield* new KeyNotFound({ id: keyId })
      }).pipe(Effect.withSpan("ApiKeys.remove"))

    const verify = (token: string) =>
      Effect.gen(function* () {
        const signed = token.startsWith(keyPrefix) ? token.slice(keyPrefix.length) : token
        const payload = yield* signer.verify(signed, yield* now)
        if (typeof payload.userId !== "string") return yield* new ApiKeyMalformed()
        // Signed by us with a userId, so made by `create`: a jti that is not a key is one we never recorded.
        return yield* Schema.decodeUnknown(Claims)(payload).pipe(Effect.mapError(() => new ApiKeyRevoked()))
      })

    /**
     * The key if it is live, with its account's columns (null when the account is deleted): one
     * round trip for what takes two lookups. A read only: a statement that may write costs twice
     * as much even when it writes nothing (0.40 against 0.18 ms on PGlite), so the last use is
     * written apart, by `markUsed`.
     */
    const findLiveKey = SqlSchema.findOne({
      Request: Schema.UUID,
      Result: LiveKeyRow,
      execute: (id) => sql`SELECT key.id, key.account_id, key.name, key.created_at, key.expired_at, key.deleted_at,
          key.last_four, key.last_used_at,
          account.name AS account_name, account.email AS account_email,
          account.registered_at AS account_registered_at, account.credits AS account_credits
        FROM api_keys key LEFT JOIN accounts account ON account.id = key.account_id AND account.deleted_at IS NULL
        WHERE key.id = ${id} AND key.deleted_at IS NULL`
    })

    /**
     * A key's last use (what the dashboard shows), written at most once a minute: a write per
     * request would make every request of a busy key queue on that one row's lock, and cost a
     * commit. Replicas racing within the minute write it once. A write that fails (a full disk)
     * is logged and the key still authenticates: `GET /api/tokens` is a read, and answered so.
     */
    const markUsed = (key: ApiKey, usedAt: Date) => {
      const stale = new Date(usedAt.getTime() - lastUseResolution)
      return key.lastUsedAt !== null && key.lastUsedAt > stale
        ? Effect.succeed(key)
        : sql<{ lastUsedAt: Date }>`UPDATE api_keys SET last_used_at = ${usedAt}
            WHERE id = ${key.id} AND deleted_at IS NULL AND (last_used_at IS NULL OR last_used_at <= ${stale})
            RETURNING last_used_at`.pipe(
            Effect.map(([used]) => (used === undefined ? key : new ApiKey({ ...key, lastUsedAt: used.lastUsedAt }))),
            Effect.catchAll((error) =>
              Effect.as(Effect.logWarning("a key's last use could not be written").pipe(Effect.annotateLogs({ keyId: key.id, reason: explained(error) })), key)
            )
          )
    }

    /**
     * Checks `Authorization: Bearer <key>` in the order of §7.2: the header, the signature and
     * expiry, the `userId` claim, revocation, then the account. The row's own expiry is checked
     * too: a token signed with a leaked secret and a later `exp` must not revive an expired key.
     */
    const authenticate = (authorization: string | undefined) =>
      Effect.gen(function* () {
        if (authorization === undefined || !authorization.startsWith("Bearer ")) return yield* new ApiKeyMissing()
        const claims = yield* verify(authorization.slice("Bearer ".length).trim())
        const usedAt = yield* now
        const row = yield* findLiveKey(claims.jti).pipe(
          Effect.orDie,
          Effect.flatMap(Option.match({ onNone: () => new ApiKeyRevoked(), onSome: Effect.succeed }))
        )
        const { accountName: name, accountEmail: email, accountRegisteredAt: registeredAt, accountCredits: credits, ...key } = row
        if (key.expiredAt.getTime() <= usedAt.getTime()) return yield* new ApiKeyInvalid()
        if (key.accountId !== claims.userId) return yield* new ApiKeyRevoked()
        if (name === null || registeredAt === null || credits === null) return yield* new AccountNotFound()
        const account = new Account({ id: key.accountId, name, email, registeredAt, credits })
        return { account, key: yield* markUsed(new ApiKey(key), usedAt) }
      }).pipe(Effect.withSpan("ApiKeys.authenticate"))

    return { create, list, remove, authenticate } as const
  }),
  dependencies: [Accounts.Default, Signer.Default]
}) {}
