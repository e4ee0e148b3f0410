/**
 * The per-address bounds of the dashboard over HTTP: which address a request counts against, with
 * and without a trusted proxy in front (`TRUSTED_PROXIES`, src/http/clientAddress.ts).
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { loginFailures, signupAttempts } from "../../src/services/attempts.ts"
import { baseUrl, csrfOf, onPage, password, signedUp, visitor } from "../support/dashboard.ts"
import { type Backend, backends, pgliteWith } from "../support/database.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)
const serverOn = (backend: Backend) => serverWith(servicesOn(backend)).pipe(Layer.provide(quiet))

const logInFrom = (email: string, pass: string, forwardedFor: string) =>
  Effect.gen(function* () {
    const browser = visitor(yield* baseUrl)
    const form = yield* browser.get("/dashboard/login")
    return yield* browser.post("/dashboard/login", { csrf: csrfOf(form.body), email, password: pass }, { "x-forwarded-for": forwardedFor })
  })

const signUpFrom = (email: string, forwardedFor: string) =>
  Effect.gen(function* () {
    const browser = visitor(yield* baseUrl)
    const form = yield* browser.get("/dashboard/signup")
    return yield* browser.post("/dashboard/signup", { csrf: csrfOf(form.body), name: "Shop", email, password }, { "x-forwarded-for": forwardedFor })
  })

layer(serverOn(pgliteWith({ TRUSTED_PROXIES: "0" })), { excludeTestServices: true })("without a trusted proxy", (it) => {
  it.effect("X-Forwarded-For is ignored: a client that forges a new one per attempt is still throttled", () =>
    Effect.gen(function* () {
      yield* signedUp(yield* baseUrl, { email: "victim@example.com" })
      for (let i = 0; i < loginFailures.perAddress; i++) {
        expect((yield* logInFrom(`guess${i}@example.com`, "wrong password", `198.51.100.${i}`)).status).toBe(401)
      }
      const refused = yield* logInFrom("victim@example.com", password, "198.51.100.99")
      expect(refused.status).toBe(429)
      onPage(refused.body, "Too many failed log-ins")
    }))
})

layer(serverOn(pgliteWith({ TRUSTED_PROXIES: "1" })), { excludeTestServices: true })("behind one trusted proxy", (it) => {
  it.effect("failed log-ins count against the address the proxy saw, so one client cannot lock out the others", () =>
    Effect.gen(function* () {
      yield* signedUp(yield* baseUrl, { email: "owner@example.com" })
      // The attacker forges entries; the proxy appends the real address last.
      for (let i = 0; i < loginFailures.perAddress; i++) {
        expect((yield* logInFrom(`guess${i}@example.com`, "wrong password", `10.9.9.${i}, 192.0.2.66`)).status).toBe(401)
      }
      expect((yield* logInFrom("owner@example.com", password, "10.9.9.200, 192.0.2.66")).status).toBe(429)
      const owner = yield* logInFrom("owner@example.com", password, "192.0.2.10")
      expect([owner.status, owner.location]).toEqual([303, "/dashboard"])
    }))

  it.effect(`sign-up: ${signupAttempts.perAddress} an hour from one address, then 429 with Retry-After; other addresses go on`, () =>
    Effect.gen(function* () {
      for (let i = 0; i < signupAttempts.perAddress; i++) {
        expect((yield* signUpFrom(`bulk${i}@example.com`, "192.0.2.77")).status).toBe(303)
      }
      const refused = yield* signUpFrom("bulk-extra@example.com", "192.0.2.77")
      expect(refused.status).toBe(429)
      onPage(refused.body, "Too many sign-ups from your network. Try again in 60 minute(s).")
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3500)
      // The form keeps what was typed.
      expect(refused.body).toContain('value="bulk-extra@example.com"')
      expect((yield* signUpFrom("bulk-extra@example.com", "192.0.2.78")).status).toBe(303)
    }))
})

for (const backend of backends) {
  layer(serverOn(backend), { excludeTestServices: true })(`the owner is never locked out from their own address, on ${backend.name}`, (it) => {
    it.effect("wrong passwords from address A get A refused for the account; the right one from address B logs in", () =>
      Effect.gen(function* () {
        yield* signedUp(yield* baseUrl, { email: "owner@example.com" })
        for (let i = 0; i < loginFailures.perAccountAndAddress; i++) {
          expect((yield* logInFrom("owner@example.com", "wrong password", "192.0.2.66")).status).toBe(401)
        }
        const attacker = yield* logInFrom("owner@example.com", password, "192.0.2.66")
        expect(attacker.status).toBe(429)
        onPage(attacker.body, "Too many failed log-ins")
        // Slowed down by the account's failures (a second), not refused.
        const owner = yield* logInFrom("owner@example.com", password, "192.0.2.10")
        expect([owner.status, owner.location]).toEqual([303, "/dashboard"])
      }))
  })
}
