/**
 * "Change password" from the Overview (README, Dashboard): the current password is checked as a
 * log-in is, bounds included; a change ends the user's other sessions and keeps this one.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { loginFailures } from "../../src/services/attempts.ts"
import { backends } from "../support/database.ts"
import { baseUrl, csrfOf, onPage, password, resetLink, signedUp, visitor } from "../support/dashboard.ts"
import type { Visitor } from "../support/dashboard.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)
const newPassword = "a brand new passphrase"

/** A second browser of the same user, logged in with `secret`. */
const loggedIn = (email: string, secret: string) =>
  Effect.gen(function* () {
    const browser = visitor(yield* baseUrl)
    const form = yield* browser.get("/dashboard/login")
    const answer = yield* browser.post("/dashboard/login", { csrf: csrfOf(form.body), email, password: secret })
    return { browser, status: answer.status }
  })

const change = (browser: Visitor, current: string, next: string) =>
  Effect.flatMap(browser.get("/dashboard/password"), (form) =>
    browser.post("/dashboard/password", { csrf: csrfOf(form.body), "current-password": current, password: next }))

for (const backend of backends) {
  layer(serverWith(servicesOn(backend)).pipe(Layer.provide(quiet)), { excludeTestServices: true })(`change password on ${backend.name}`, (it) => {
    it.effect("the Overview links to the form; a change keeps this session and ends the others", () =>
      Effect.gen(function* () {
        const browser = yield* signedUp(yield* baseUrl, { email: "change@example.com" })
        const other = yield* loggedIn("change@example.com", password)
        // A reset link made before the change, which the change spends.
        const pending = yield* resetLink("change@example.com")
        expect(other.status).toBe(303)
        onPage((yield* browser.get("/dashboard")).body, `<a href="/dashboard/password">Change password</a>`)
        const form = yield* browser.get("/dashboard/password")
        expect(form.status).toBe(200)
        onPage(form.body, "Current password", "New password")
        // No CSRF token: refused, nothing changes.
        expect((yield* browser.post("/dashboard/password", { "current-password": password, password: newPassword })).status).toBe(403)
        const short = yield* change(browser, password, "short")
        expect(short.status).toBe(400)
        onPage(short.body, "Use at least 8 characters")
        const wrong = yield* change(browser, "not the password", newPassword)
        expect(wrong.status).toBe(401)
        onPage(wrong.body, "The current password is not right")
        const done = yield* change(browser, password, newPassword)
        expect([done.status, done.location]).toEqual([303, "/dashboard?done=password-changed"])
        onPage((yield* browser.get(done.location ?? "")).body, "Your password is changed")
        const ended = yield* other.browser.get("/dashboard")
        expect([ended.status, ended.location]).toEqual([303, "/dashboard/login"])
        expect((yield* loggedIn("change@example.com", password)).status).toBe(401)
        expect((yield* loggedIn("change@example.com", newPassword)).status).toBe(303)
        expect((yield* visitor(yield* baseUrl).get(pending.path)).status).toBe(410)
      }))

    it.effect(`a wrong current password is a failed log-in: after ${loginFailures.perAccountAndAddress}, even the right one is refused (429) from this address, not from another`, () =>
      Effect.gen(function* () {
        const browser = yield* signedUp(yield* baseUrl, { email: "guess@example.com" })
        for (let i = 0; i < loginFailures.perAccountAndAddress; i++) {
          expect((yield* change(browser, `guess number ${i}`, newPassword)).status).toBe(401)
        }
        const refused = yield* change(browser, password, newPassword)
        expect(refused.status).toBe(429)
        onPage(refused.body, "Too many failed log-ins")
        expect(refused.headers.get("retry-after")).not.toBeNull()
        // Failures from this address never lock the owner out from another (README, Dashboard).
        expect((yield* loggedIn("guess@example.com", password)).status).toBe(303)
        // Nothing changed: this session still works.
        expect((yield* browser.get("/dashboard")).status).toBe(200)
      }))
  })
}
