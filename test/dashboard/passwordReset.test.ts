/**
 * The link `user reset-link` prints (README, Operator CLI) opens a form that sets a new password
 * once, ends every session of the user, and logs this browser in.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, Layer, Logger, LogLevel, Schedule } from "effect"
import { type Backend, backends, postgresSkipReason, postgresUrl } from "../support/database.ts"
import { baseUrl, csrfOf, onPage, password, resetLink, signedUp, visitor } from "../support/dashboard.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)
const newPassword = "a brand new passphrase"

type ResetLinkOf = Effect.Effect.Success<ReturnType<typeof resetLink>>

/** The status of a log-in with these credentials, from a browser of its own. */
const logInStatus = (email: string, secret: string) =>
  Effect.gen(function* () {
    const browser = visitor(yield* baseUrl)
    const form = yield* browser.get("/dashboard/login")
    return (yield* browser.post("/dashboard/login", { csrf: csrfOf(form.body), email, password: secret })).status
  })

/** Posts the reset form as a browser that has a CSRF token but no form from the link (which shows none once refused). */
const submit = (token: string, secret: string) =>
  Effect.gen(function* () {
    const browser = visitor(yield* baseUrl)
    const login = yield* browser.get("/dashboard/login")
    return yield* browser.post("/dashboard/reset-password", { csrf: csrfOf(login.body), token, password: secret })
  })

const expireResets = (email: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE password_resets SET expires_at = now() - interval '1 minute'
      WHERE user_id = (SELECT id FROM dashboard_users WHERE email = ${email})`).pipe(Effect.orDie)

/**
 * On PostgreSQL, holds the link's row locked while both posts run, until both wait on a lock:
 * their transactions then overlap for sure, instead of by luck of timing. (PGlite has one
 * connection, so its transactions never overlap.)
 */
const racePosts = <A>(email: string, posts: Effect.Effect<A>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      yield* sql`SELECT 1 FROM password_resets WHERE user_id = (SELECT id FROM dashboard_users WHERE email = ${email}) FOR UPDATE`
      const running = yield* Effect.fork(posts)
      // A transaction sees pg_stat_activity as it was at its first look unless told to look again.
      const waiting = sql`SELECT pg_stat_clear_snapshot()`.pipe(
        Effect.zipRight(sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`),
        Effect.map(([row]) => row?.n ?? 0)
      )
      yield* waiting.pipe(
        Effect.repeat({ until: (n) => n >= 2, schedule: Schedule.spaced("20 millis") }),
        Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("the two posts never both waited on a lock") })
      )
      return running
    }).pipe(sql.withTransaction, Effect.orDie, Effect.flatMap(Fiber.join)))

/**
 * Two browsers open a link each (the same one, or two of one user) and post a new password at the
 * same moment: one is set (303), the other refused (410). The answers, and the password that won.
 */
const postAtOnce = (backend: Backend, email: string, links: readonly [ResetLinkOf, ResetLinkOf]) =>
  Effect.gen(function* () {
    const base = yield* baseUrl
    const browsers = [visitor(base), visitor(base)] as const
    const forms = yield* Effect.all([browsers[0].get(links[0].path), browsers[1].get(links[1].path)])
    const passwords = [newPassword, "the other new passphrase"] as const
    const posts = Effect.all([0, 1].map((i) =>
      browsers[i]!.post("/dashboard/reset-password", { csrf: csrfOf(forms[i]!.body), token: links[i]!.token, password: passwords[i]! })), { concurrency: "unbounded" })
    const answers = backend.name === "PostgreSQL" ? yield* racePosts(email, posts) : yield* posts
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 410])
    return { answers, winner: answers[0]?.status === 303 ? passwords[0] : passwords[1] }
  })

for (const backend of backends) {
  layer(serverWith(servicesOn(backend)).pipe(Layer.provide(quiet)), { excludeTestServices: true })(`password-reset links on ${backend.name}`, (it) => {
    it.effect("the CLI's link opens a form that sets the password, ends every other session and logs in", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const elsewhere = yield* signedUp(base, { email: "reset@example.com" })
        expect((yield* elsewhere.get("/dashboard")).status).toBe(200)
        const link = yield* resetLink("Reset@Example.com")
        expect(link.path).toBe(`/dashboard/reset-password?token=${link.token}`)
        const browser = visitor(base)
        const form = yield* browser.get(link.path)
        expect(form.status).toBe(200)
        onPage(form.body, "Choose a new password", "reset@example.com", `name="token" value="${link.token}"`)
        // The password rules of sign-up; a refused form keeps the link usable.
        const short = yield* browser.post("/dashboard/reset-password", { csrf: csrfOf(form.body), token: link.token, password: "short" })
        expect(short.status).toBe(400)
        onPage(short.body, "Use at least 8 characters")
        // No CSRF token: refused, nothing changes.
        expect((yield* browser.post("/dashboard/reset-password", { token: link.token, password: newPassword })).status).toBe(403)
        const done = yield* browser.post("/dashboard/reset-password", { csrf: csrfOf(short.body), token: link.token, password: newPassword })
        expect([done.status, done.location]).toEqual([303, "/dashboard?done=password-reset"])
        onPage((yield* browser.get(done.location ?? "")).body, "Your new password is set")
        // The session that was open elsewhere has ended.
        const closed = yield* elsewhere.get("/dashboard")
        expect([closed.status, closed.location]).toEqual([303, "/dashboard/login"])
        expect(yield* logInStatus("reset@example.com", password)).toBe(401)
        expect(yield* logInStatus("reset@example.com", newPassword)).toBe(303)
      }))

    it.effect("a link works once, even for two posts at the same moment; a used link says to ask for a new one (410)", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        yield* signedUp(base, { email: "once@example.com" })
        const link = yield* resetLink("once@example.com")
        const { answers, winner } = yield* postAtOnce(backend, "once@example.com", [link, link])
        onPage(answers.find((answer) => answer.status === 410)?.body ?? "", "Ask the operator of this service for a new link")
        const again = yield* visitor(base).get(link.path)
        expect(again.status).toBe(410)
        onPage(again.body, "This password-reset link cannot be used", "Ask the operator of this service for a new link")
        expect((yield* submit(link.token, "yet another passphrase")).status).toBe(410)
        expect(yield* logInStatus("once@example.com", winner)).toBe(303)
      }))

    it.effect("two links of one user posted at the same moment: one sets the password, the other finds its link spent (410)", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        yield* signedUp(base, { email: "two-at-once@example.com" })
        const links = [yield* resetLink("two-at-once@example.com"), yield* resetLink("two-at-once@example.com")] as const
        const { winner } = yield* postAtOnce(backend, "two-at-once@example.com", links)
        expect(yield* logInStatus("two-at-once@example.com", winner)).toBe(303)
      }))

    it.effect("a new password spends every other link of the user too (410), so a link read by someone else no longer opens the account", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        yield* signedUp(base, { email: "two-links@example.com" })
        const [used, other] = [yield* resetLink("two-links@example.com"), yield* resetLink("two-links@example.com")]
        const done = yield* submit(used.token, newPassword)
        expect(done.status).toBe(303)
        expect((yield* visitor(base).get(other.path)).status).toBe(410)
        expect((yield* submit(other.token, "the intruder's passphrase")).status).toBe(410)
        expect(yield* logInStatus("two-links@example.com", "the intruder's passphrase")).toBe(401)
        expect(yield* logInStatus("two-links@example.com", newPassword)).toBe(303)
      }))

    it.effect("an expired link (410) or an unknown one (404) is refused and changes nothing", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        const browser = yield* signedUp(base, { email: "late@example.com" })
        const link = yield* resetLink("late@example.com")
        const slow = visitor(base)
        const form = yield* slow.get(link.path)
        expect(form.status).toBe(200)
        yield* expireResets("late@example.com")
        const late = yield* visitor(base).get(link.path)
        expect(late.status).toBe(410)
        onPage(late.body, "Ask the operator of this service for a new link")
        // A form opened in time and sent too late.
        const posted = yield* slow.post("/dashboard/reset-password", { csrf: csrfOf(form.body), token: link.token, password: newPassword })
        expect(posted.status).toBe(410)
        const unknown = yield* visitor(base).get("/dashboard/reset-password?token=not-a-token")
        expect(unknown.status).toBe(404)
        onPage(unknown.body, "Ask the operator of this service for a new link")
        expect((yield* visitor(base).get("/dashboard/reset-password")).status).toBe(404)
        expect((yield* submit("not-a-token", newPassword)).status).toBe(404)
        // Nothing changed: the old password works, the session is still open.
        expect((yield* browser.get("/dashboard")).status).toBe(200)
        expect(yield* logInStatus("late@example.com", password)).toBe(303)
      }))
  })
}
if (!postgresUrl) describe.skip(postgresSkipReason, () => it("password-reset links on PostgreSQL", () => {}))
