/**
 * Dashboard sessions (README, Dashboard). A session is a database row; its cookie holds a token that the
 * service signs as it signs API keys (`Signer`), naming the row (`sid`) and carrying no `userId`. A session
 * cookie sent as an API key is therefore "signed by the service but not created from the dashboard"
 * (spec §7.2): `/api/tokens` answers 400 `Malformed token: missing userId` and never 200. Ending a
 * session deletes its row, so its cookie stops working at once, whatever the JWT's expiry says.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { SessionMissing } from "../domain/dashboard.ts"
import { Session } from "../domain/models.ts"
import type { DashboardUser } from "../domain/models.ts"
import { DashboardConfig } from "../config/DashboardConfig.ts"
import { normaliseEmail } from "../domain/credentials.ts"
import { randomToken, tokenHash } from "./secrets.ts"
import { Signer } from "./Signer.ts"

/** A session id and no `userId`: an API key (which has one) never passes for a session. */
const Claims = Schema.Struct({ sid: Schema.UUID, userId: Schema.optional(Schema.Never) })

/**
 * How long a browser that logged in stays known to the log-in's bounds (README, Dashboard): its
 * attempts skip the turn that other addresses' failures make on the account (attempts.ts), so
 * someone who keeps that turn full from many addresses cannot hold the owner's log-in.
 */
export const knownBrowserLifetime = Duration.days(180)

/**
 * The account's e-mail address, hashed under the service's secret (a plain hash let anyone holding
 * the cookie confirm a guessed address; found by review), and neither a session id nor a
 * `userId`: never a session nor a key.
 */
const BrowserClaims = Schema.Struct({ browserOf: Schema.String, sid: Schema.optional(Schema.Never), userId: Schema.optional(Schema.Never) })

export class Sessions extends Effect.Service<Sessions>()("Sessions", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { sessionLifetime } = yield* DashboardConfig
    const signer = yield* Signer
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const browserOf = (email: string) => signer.keyedHash(`known-browser:${normaliseEmail(email)}`)

    /** The session id a cookie names, if the service signed it and it has not expired. */
    const sessionId = (token: string | undefined) =>
      Effect.gen(function* () {
        if (token === undefined || token === "") return Option.none<string>()
        const verified = yield* Effect.option(signer.verify(token, yield* now))
        return Option.flatMap(verified, (payload) => Option.map(Schema.decodeUnknownOption(Claims)(payload), (claims) => claims.sid))
      })

    const findLive = SqlSchema.findOne({
      Request: Schema.Struct({ id: Schema.UUID, at: Schema.DateFromSelf }),
      Result: Session,
      execute: ({ at, id }) => sql`SELECT s.id, s.user_id, u.account_id, u.email, s.csrf_token, s.expires_at
        FROM sessions s JOIN dashboard_users u ON u.id = s.user_id JOIN accounts a ON a.id = u.account_id
        WHERE s.id = ${id} AND s.expires_at > ${at} AND a.deleted_at IS NULL`
    })

    /** The session a cookie stands for; `SessionMissing` for none, a forged or expired one, or one ended. */
    const resume = (token: string | undefined) =>
      Effect.gen(function* () {
        const id = yield* sessionId(token)
        const found = Option.isSome(id) ? yield* Effect.orDie(findLive({ id: id.value, at: yield* now })) : Option.none()
        return Option.isSome(found) ? found.value : yield* new SessionMissing()
      }).pipe(Effect.withSpan("Sessions.resume"))

    /** Ends the session a cookie stands for, if any. */
    const end = (token: string | undefined) =>
      Effect.flatMap(sessionId(token), (id) =>
        Option.isSome(id) ? Effect.orDie(sql`DELETE FROM sessions WHERE id = ${id.value}`) : Effect.void).pipe(
          Effect.asVoid,
          Effect.withSpan("Sessions.end")
        )

    /**
     * A new session for a user who just proved who they are, and its cookie value. The session the
     * browser had before (`previous`), if any, ends: a log-in never keeps an id someone could have
     * planted (session fixation).
     */
    const start = (user: DashboardUser, previous: string | undefined) =>
      Effect.gen(function* () {
        yield* end(previous)
        const createdAt = yield* now
        yield* sql`DELETE FROM sessions WHERE expires_at <= ${createdAt}`
        const session = new Session({
          id: crypto.randomUUID(), userId: user.id, accountId: user.accountId, email: user.email,
          csrfToken: randomToken(), expiresAt: new Date(createdAt.getTime() + Duration.toMillis(sessionLifetime))
        })
        yield* sql`INSERT INTO sessions ${sql.insert({
          id: session.id, userId: user.id, csrfToken: session.csrfToken, createdAt, expiresAt: session.expiresAt
        })}`
        const token = yield* signer.sign({ sid: session.id }, { issuedAt: createdAt, expiresAt: session.expiresAt })
        return { token, session }
      }).pipe(Effect.orDie, Effect.withSpan("Sessions.start"))

    /** The value of the cookie that marks this browser as one that logged in as `email`, and its expiry. */
    const knownBrowser = (email: string) =>
      Effect.gen(function* () {
        const issuedAt = yield* now
        const expiresAt = new Date(issuedAt.getTime() + Duration.toMillis(knownBrowserLifetime))
        return { token: yield* signer.sign({ browserOf: browserOf(email) }, { issuedAt, expiresAt }), expiresAt }
      })

    /** Whether the cookie marks this browser as one that logged in as `email`, signed by the service and unexpired. */
    const isKnownBrowser = (token: string | undefined, email: string) =>
      Effect.gen(function* () {
        if (token === undefined || token === "") return false
        const verified = yield* Effect.option(signer.verify(token, yield* now))
        const claims = Option.flatMap(verified, Schema.decodeUnknownOption(BrowserClaims))
        // A cookie of an earlier version, with the plain hash, still counts until it expires (at most
        // 180 days): the owner keeps their protection across the upgrade, and the next log-in replaces it.
        return Option.isSome(claims) && [browserOf(email), tokenHash(`known-browser:${normaliseEmail(email)}`)].includes(claims.value.browserOf)
      })

    return { start, resume, end, knownBrowser, isKnownBrowser } as const
  }),
  dependencies: [Signer.Default]
}) {}
