/**
 * A key just created, kept for the one page that shows it after the create form's redirect
 * (POST/redirect/GET, README "Dashboard"): tied to the session, taken (deleted) by the first page
 * that reads it, and for a few minutes at most, so a reload shows it no more. It is sealed with
 * AES-256-GCM under a key derived from the session's cookie, which the database never holds: a
 * copy of the database does not give the key.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto"

/** Time enough to follow a redirect, even on a slow network. */
export const keyFlashLifetime = Duration.minutes(5)

const sealingKey = (cookie: string) => createHash("sha256").update(`imd key flash\0${cookie}`).digest()

const seal = (cookie: string, secret: string) => {
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", sealingKey(cookie), iv)
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url")
}

/** None if `sealed` was not sealed under this cookie (or was tampered with). */
const unseal = (cookie: string, sealed: string) =>
  Option.liftThrowable(() => {
    const bytes = Buffer.from(sealed, "base64url")
    const decipher = createDecipheriv("aes-256-gcm", sealingKey(cookie), bytes.subarray(0, 12))
    decipher.setAuthTag(bytes.subarray(12, 28))
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8")
  })()

const Flash = Schema.Struct({ keyId: Schema.UUID, sealed: Schema.String, expiresAt: Schema.DateFromSelf })

export class KeyFlash extends Effect.Service<KeyFlash>()("KeyFlash", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Keeps `token` of key `keyId` for the session; a newer key replaces one not shown yet. */
    const keep = (session: { readonly id: string; readonly cookie: string }, keyId: string, token: string) =>
      Effect.gen(function* () {
        const expiresAt = new Date((yield* Clock.currentTimeMillis) + Duration.toMillis(keyFlashLifetime))
        const row = { sessionId: session.id, keyId, sealed: seal(session.cookie, token), expiresAt }
        // Those never shown (the browser went elsewhere) go as new ones come.
        yield* sql`DELETE FROM key_flashes WHERE expires_at <= now()`
        yield* sql`INSERT INTO key_flashes ${sql.insert(row)} ON CONFLICT (session_id) DO UPDATE
          SET key_id = EXCLUDED.key_id, sealed = EXCLUDED.sealed, expires_at = EXCLUDED.expires_at`
      }).pipe(Effect.orDie, Effect.withSpan("KeyFlash.keep"))

    const takeRow = SqlSchema.findOne({
      Request: Schema.UUID,
      Result: Flash,
      execute: (sessionId) => sql`DELETE FROM key_flashes WHERE session_id = ${sessionId} RETURNING key_id, sealed, expires_at`
    })

    /** The key kept for the session, once: it is deleted as it is read. */
    const take = (session: { readonly id: string; readonly cookie: string }) =>
      Effect.gen(function* () {
        const found = yield* Effect.orDie(takeRow(session.id))
        const at = yield* Clock.currentTimeMillis
        return Option.flatMap(Option.filter(found, (flash) => flash.expiresAt.getTime() > at), (flash) =>
          Option.map(unseal(session.cookie, flash.sealed), (token) => ({ keyId: flash.keyId, token })))
      }).pipe(Effect.withSpan("KeyFlash.take"))

    return { keep, take } as const
  })
}) {}
