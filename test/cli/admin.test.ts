import { describe, expect, it, layer } from "@effect/vitest"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, Option, Schema } from "effect"
import { backends, pglite, postgresSkipReason, postgresUrl } from "../support/database.ts"
import { getTokens, operatorToken, seen, serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const json = "application/json"
const error = (status: number, message: string) => ({ status, contentType: json, body: { error: message } })
const notACommand = error(400, "Bad Request, not an operator command")

/** `POST /admin/commands` with a body and an `Authorization` header (none when `undefined`). */
const post = (body: (request: HttpClientRequest.HttpClientRequest) => HttpClientRequest.HttpClientRequest, authorization?: string) =>
  HttpClient.HttpClient.pipe(
    Effect.flatMap((client) =>
      client.execute(
        HttpClientRequest.post("/admin/commands").pipe(
          body,
          authorization === undefined ? (r) => r : HttpClientRequest.setHeader("authorization", authorization)
        )
      )
    ),
    Effect.flatMap(seen),
    Effect.orDie
  )

/** A command as JSON (what the CLI sends), with the operator token unless told otherwise (`null`: no header). */
const command = (value: unknown, authorization: string | null = `Bearer ${operatorToken}`) =>
  post(HttpClientRequest.bodyUnsafeJson(value), authorization ?? undefined)

const Created = Schema.Struct({ id: Schema.String })
const KeyPrinted = Schema.Struct({ id: Schema.String, key: Schema.String })

/** An account made through the route; its id. */
const newAccount = (credits: number) =>
  command({ _tag: "AccountCreate", name: "Ada", credits }).pipe(Effect.map(({ body }) => Schema.decodeUnknownSync(Created)(body).id))

for (const backend of backends) {
  layer(serverWith(servicesOn(backend)), { excludeTestServices: true })(`POST /admin/commands on ${backend.name}`, (it) => {
    it.effect("401 `Unauthorized` without the operator token, with another one, or in another scheme; nothing runs", () =>
      Effect.gen(function* () {
        const accountId = yield* newAccount(3)
        const grant = { _tag: "CreditsAdd", accountId, amount: 100 }
        const unauthorized = error(401, "Unauthorized")
        expect(yield* command(grant, null)).toEqual(unauthorized)
        expect(yield* command(grant, "Bearer ")).toEqual(unauthorized)
        expect(yield* command(grant, "Bearer not-the-operator-token")).toEqual(unauthorized)
        expect(yield* command(grant, `Bearer ${operatorToken}x`)).toEqual(unauthorized)
        expect(yield* command(grant, `Bearer ${operatorToken.slice(0, -1)}`)).toEqual(unauthorized)
        expect(yield* command(grant, `Basic ${operatorToken}`)).toEqual(unauthorized)
        // Unauthorized before reading the body: a garbage body is not a 400 either.
        expect(yield* post(HttpClientRequest.bodyText("{", json))).toEqual(unauthorized)
        expect(yield* command({ _tag: "CreditsAdd", accountId, amount: 1 })).toEqual({
          status: 200, contentType: json, body: { accountId, credits: 4 }
        })
      }))

    it.effect("404 `Not found` to a request from elsewhere (through a proxy), even with the operator token; nothing runs", () =>
      Effect.gen(function* () {
        const accountId = yield* newAccount(3)
        const grant = HttpClientRequest.bodyUnsafeJson({ _tag: "CreditsAdd", accountId, amount: 100 })
        for (const proxy of [{ "x-forwarded-for": "203.0.113.7" }, { forwarded: "for=127.0.0.1" }]) {
          expect(yield* post((request) => grant(HttpClientRequest.setHeaders(request, proxy)), `Bearer ${operatorToken}`))
            .toEqual(error(404, "Not found"))
        }
        expect(yield* command({ _tag: "CreditsAdd", accountId, amount: 1 })).toEqual({
          status: 200, contentType: json, body: { accountId, credits: 4 }
        })
      }))

    it.effect("400 for a body that is not an operator command", () =>
      Effect.gen(function* () {
        const accountId = yield* newAccount(3)
        const authorized = `Bearer ${operatorToken}`
        expect(yield* post(HttpClientRequest.bodyText("credits add", "text/plain"), authorized)).toEqual(notACommand)
        expect(yield* post(HttpClientRequest.bodyText("{\"_tag\":", json), authorized)).toEqual(notACommand)
        expect(yield* post((r) => r, authorized)).toEqual(notACommand)
        expect(yield* command({ _tag: "AccountRename", accountId, name: "Bob" })).toEqual(notACommand)
        expect(yield* command({ _tag: "AccountCreate" })).toEqual(notACommand)
        expect(yield* command({ _tag: "CreditsAdd", accountId, amount: "5" })).toEqual(notACommand)
        expect(yield* command({ _tag: "CreditsAdd", accountId, amount: 1.5 })).toEqual(notACommand)
        expect(yield* command({ _tag: "KeyCreate", accountId, expiresAt: "tomorrow" })).toEqual(notACommand)
        expect(yield* command([{ _tag: "KeyList", accountId }])).toEqual(notACommand)
      }))

    it.effect("400 for a command body over 64 KiB: not read past that", () =>
      Effect.gen(function* () {
        const big = { _tag: "AccountCreate", name: "x".repeat(64 * 1024), credits: 1 }
        expect(yield* command(big)).toEqual(notACommand)
      }))

    it.effect("200 with the command's JSON result, as the CLI prints it", () =>
      Effect.gen(function* () {
        const created = yield* command({ _tag: "AccountCreate", name: "Ada", email: "ada@example.com", credits: 3 })
        expect(created).toEqual({
          status: 200,
          contentType: json,
          body: { id: expect.any(String), name: "Ada", email: "ada@example.com", registeredAt: expect.any(String), credits: 3 }
        })
        const accountId = Schema.decodeUnknownSync(Created)(created.body).id
        const key = yield* command({ _tag: "KeyCreate", accountId, name: "CMS plugin", expiresAt: "2030-01-01T00:00:00.000Z" })
        expect(key).toEqual({
          status: 200,
          contentType: json,
          body: { id: expect.any(String), key: expect.any(String), name: "CMS plugin", createdAt: expect.any(String), expiredAt: "2030-01-01T00:00:00.000Z" }
        })
        const printed = Schema.decodeUnknownSync(KeyPrinted)(key.body)
        expect(yield* command({ _tag: "CreditsAdd", accountId, amount: 5 })).toEqual({
          status: 200, contentType: json, body: { accountId, credits: 8 }
        })
        expect(yield* getTokens(printed.key)).toMatchObject({ status: 200, body: { user: { id: accountId, credits: 8 } } })
        expect(yield* command({ _tag: "KeyList", accountId })).toMatchObject({
          status: 200, body: [{ id: printed.id, name: "CMS plugin", expiredAt: "2030-01-01T00:00:00.000Z", status: "active" }]
        })
        expect(yield* command({ _tag: "SubscriptionClear", accountId })).toEqual({
          status: 200, contentType: json, body: { accountId, subscription: null }
        })
        expect(yield* command({ _tag: "KeyDelete", keyId: printed.id })).toEqual({
          status: 200, contentType: json, body: { id: printed.id, deleted: true }
        })
        expect((yield* getTokens(printed.key)).status).toBe(401)
      }))

    it.effect("the new commands through the route: account list and show, accounts by e-mail, user reset-link", () =>
      Effect.gen(function* () {
        const email = `route-${crypto.randomUUID().slice(0, 8)}@example.com`
        const created = yield* command({ _tag: "AccountInvite", name: "Ada", email, credits: 3 })
        const accountId = Schema.decodeUnknownSync(Created)(created.body).id
        expect(yield* command({ _tag: "CreditsAdd", accountId: email, amount: 2 })).toEqual({
          status: 200, contentType: json, body: { accountId, credits: 5 }
        })
        const summary = { id: accountId, name: "Ada", email, registeredAt: expect.any(String), credits: 5, keyCount: 0 }
        expect(yield* command({ _tag: "AccountList", email })).toEqual({ status: 200, contentType: json, body: [summary] })
        expect(yield* command({ _tag: "AccountShow", accountId: email })).toEqual({
          status: 200, contentType: json, body: { ...summary, subscription: null }
        })
        expect(yield* command({ _tag: "UserResetLink", email })).toMatchObject({
          status: 200, body: { email, accountId, url: expect.stringMatching(/\/dashboard\/reset-password\?token=/) }
        })
        expect(yield* command({ _tag: "UserResetLink", email: "nobody@example.com" }))
          .toEqual(error(404, "no dashboard user has the e-mail address nobody@example.com"))
        expect(yield* command({ _tag: "AccountCreate", name: "Again", email }))
          .toEqual(error(400, `--email: account ${accountId} has ${email} already`))
      }))

    it.effect("404 with the message for an unknown account or key; 400 with the message for an invalid command", () =>
      Effect.gen(function* () {
        const accountId = yield* newAccount(3)
        const missingKey = crypto.randomUUID()
        expect(yield* command({ _tag: "CreditsAdd", accountId: crypto.randomUUID(), amount: 5 }))
          .toEqual(error(404, "account not found"))
        expect(yield* command({ _tag: "KeyList", accountId: "not-an-id" })).toEqual(error(404, "account not found"))
        expect(yield* command({ _tag: "KeyDelete", keyId: missingKey })).toEqual(error(404, `key not found: ${missingKey}`))
        expect(yield* command({ _tag: "CreditsAdd", accountId, amount: -4 }))
          .toEqual(error(400, "the balance is 3, it cannot go below 0"))
        expect(yield* command({ _tag: "KeyCreate", accountId, expiresAt: "2001-01-01T00:00:00.000Z" }))
          .toEqual(error(400, "the expiry must be a valid date in the future"))
        expect(yield* command({ _tag: "KeyCreate", accountId, expiresAt: "2030-01-01T00:00:00.000Z", expiresInDays: 3 }))
          .toEqual(error(400, "give --expires-at or --expires-in-days, not both"))
      }))
  })
}

/** As on PostgreSQL, where the service opens no admin route. */
const closedRoute = serverWith(servicesOn(pglite), Option.none())

layer(closedRoute, { excludeTestServices: true })("POST /admin/commands without an operator token", (it) => {
  it.effect("404 `Not found`, whatever the token", () =>
    Effect.gen(function* () {
      expect(yield* command({ _tag: "AccountCreate", name: "Ada" })).toEqual(error(404, "Not found"))
      expect(yield* command({ _tag: "AccountCreate", name: "Ada" }, null)).toEqual(error(404, "Not found"))
    }))
})

if (!postgresUrl) describe.skip(postgresSkipReason, () => it("POST /admin/commands on PostgreSQL", () => {}))
