/**
 * The service's signed tokens (spec §5, §7.2): JWTs with HS256, the only algorithm accepted, under
 * one secret. API keys and dashboard session cookies are both such tokens; their claims tell them
 * apart (see `ApiKeys` and `Sessions`).
 */
import { createHmac } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { AppConfig } from "../config/AppConfig.ts"
import { ApiKeyInvalid } from "../domain/errors.ts"
import * as Hs256 from "./hs256.ts"
import { randomToken } from "./secrets.ts"

/** The secret from `API_KEY_SECRET`, or one generated on first start and kept in the database. */
const signingSecret = Effect.gen(function* () {
  const config = yield* AppConfig
  if (Option.isSome(config.apiKeySecret)) return Redacted.value(config.apiKeySecret.value)
  const sql = yield* SqlClient.SqlClient
  const generated = randomToken()
  // Replicas starting together agree on whichever secret was written first.
  yield* sql`INSERT INTO settings (key, value) VALUES ('api_key_secret', ${generated}) ON CONFLICT (key) DO NOTHING`
  const [row] = yield* sql<{ value: string }>`SELECT value FROM settings WHERE key = 'api_key_secret'`
  return row?.value ?? generated
})

/** Whole seconds, as JWT times are. */
const seconds = (date: Date) => Math.floor(date.getTime() / 1000)

export interface TokenTimes {
  readonly issuedAt: Date
  readonly expiresAt: Date
  /** The `jti` claim, when the token names a row by it. */
  readonly id?: string
}

export class Signer extends Effect.Service<Signer>()("Signer", {
  effect: Effect.gen(function* () {
    const secret = new TextEncoder().encode(yield* Effect.orDie(signingSecret))

    const sign = (claims: Hs256.Claims, times: TokenTimes) =>
      Effect.sync(() =>
        Hs256.sign(secret, {
          ...claims,
          iat: seconds(times.issuedAt),
          exp: seconds(times.expiresAt),
          ...(times.id === undefined ? {} : { jti: times.id })
        })
      )

    /**
     * The claims of a token this service signed and that has not expired at `currentDate`. A token
     * without `exp` is refused: every token `sign` makes has one, so one without it was never ours
     * to accept (a leaked secret must not mint keys that never expire, README "Configuration").
     */
    const verify = (token: string, currentDate: Date) =>
      Effect.suspend(() => {
        const claims = Hs256.verify(secret, token, seconds(currentDate))
        return claims === undefined ? Effect.fail(new ApiKeyInvalid()) : Effect.succeed(claims)
      })

    /** A digest of `text` only this service can make: what a cookie may carry of an e-mail address. */
    const keyedHash = (text: string) => createHmac("sha256", secret).update(text).digest("base64url")

    return { sign, verify, keyedHash } as const
  })
}) {}
