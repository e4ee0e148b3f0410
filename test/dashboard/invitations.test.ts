import { expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Logger, LogLevel, Schema } from "effect"
import { runCommand } from "../../src/cli/commands.ts"
import { pgliteWith } from "../support/database.ts"
import { baseUrl, csrfOf, onPage, password, visitor } from "../support/dashboard.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)

const Invited = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  credits: Schema.Number,
  invitation: Schema.Struct({ token: Schema.String, path: Schema.String, expiresAt: Schema.String })
})

const invite = (email: string, name = "Invited shop", credits = 5) =>
  runCommand({ _tag: "AccountInvite", email, name, credits }).pipe(Effect.flatMap(Schema.decodeUnknown(Invited)), Effect.orDie)

const accountCount = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM accounts`).pipe(
  Effect.map(([row]) => row?.n ?? 0),
  Effect.orDie
)

layer(serverWith(servicesOn(pgliteWith({ SIGNUP: "closed" }))).pipe(Layer.provide(quiet)), { excludeTestServices: true })(
  "SIGNUP=closed and invitations",
  (it) => {
    it.effect("sign-up is closed: the page says so (403), a post creates nothing, the log-in page points to invitations", () =>
      Effect.gen(function* () {
        const browser = visitor(yield* baseUrl)
        const page = yield* browser.get("/dashboard/signup")
        expect(page.status).toBe(403)
        onPage(page.body, "Sign-up is closed on this service")
        const login = yield* browser.get("/dashboard/login")
        onPage(login.body, "New accounts are made by invitation")
        const before = yield* accountCount
        const answer = yield* browser.post("/dashboard/signup", { csrf: csrfOf(login.body), name: "Eve", email: "eve@example.com", password })
        expect(answer.status).toBe(403)
        expect(yield* accountCount).toBe(before)
      }))

    it.effect("`account invite` prints a one-time link: it sets a password and logs in, once", () =>
      Effect.gen(function* () {
        const invited = yield* invite("Invited@Example.com")
        expect(invited.email).toBe("invited@example.com")
        expect(invited.credits).toBe(5)
        expect(invited.invitation.path).toBe(`/dashboard/invitation?token=${invited.invitation.token}`)
        const browser = visitor(yield* baseUrl)
        const form = yield* browser.get(invited.invitation.path)
        expect(form.status).toBe(200)
        onPage(form.body, "invited@example.com")
        const short = yield* browser.post("/dashboard/invitation", { csrf: csrfOf(form.body), token: invited.invitation.token, password: "short" })
        expect(short.status).toBe(400)
        onPage(short.body, "Use at least 8 characters")
        const accepted = yield* browser.post("/dashboard/invitation", { csrf: csrfOf(form.body), token: invited.invitation.token, password })
        expect([accepted.status, accepted.location]).toEqual([303, "/dashboard?done=welcome"])
        const overview = yield* browser.get("/dashboard")
        onPage(overview.body, "Invited shop")
        onPage(overview.body, "5 credits")
        // Used: the link is dead, for anyone.
        expect((yield* visitor(yield* baseUrl).get(invited.invitation.path)).status).toBe(404)
        const again = yield* browser.post("/dashboard/invitation", { csrf: csrfOf(form.body), token: invited.invitation.token, password: "another password" })
        expect(again.status).toBe(404)
        // The password works at the log-in page.
        const other = visitor(yield* baseUrl)
        const login = yield* other.get("/dashboard/login")
        const loggedIn = yield* other.post("/dashboard/login", { csrf: csrfOf(login.body), email: "invited@example.com", password })
        expect(loggedIn.status).toBe(303)
      }))

    it.effect("an unknown token is not found; an e-mail address taken or invalid is refused and creates no account", () =>
      Effect.gen(function* () {
        expect((yield* visitor(yield* baseUrl).get("/dashboard/invitation?token=nope")).status).toBe(404)
        yield* invite("twice@example.com")
        const before = yield* accountCount
        for (const email of ["twice@example.com", "not an address"]) {
          const refused = yield* runCommand({ _tag: "AccountInvite", email, name: "Again" }).pipe(Effect.flip)
          expect(refused._tag).toBe("InvalidCommand")
        }
        expect(yield* accountCount).toBe(before)
      }))
  }
)
