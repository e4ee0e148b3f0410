/**
 * "Forgot password" (README, Dashboard): with `SMTP_URL`, the page e-mails a one-time reset link,
 * answering alike whether or not the address has an account, with a bound per network address;
 * without it, the page says to ask the operator.
 */
import { afterAll, expect, it, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Layer, Logger, LogLevel, Schedule } from "effect"
import { logSummary } from "../../src/config/Settings.ts"
import { testSettings } from "../support/config.ts"
import { resetRequests } from "../../src/services/attempts.ts"
import { pglite, pgliteWith } from "../support/database.ts"
import { baseUrl, csrfOf, onPage, signedUp, visitor } from "../support/dashboard.ts"
import type { Visitor } from "../support/dashboard.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"
import { bodyOf, headerOf, startSmtp } from "../support/smtp.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)
const smtp = await startSmtp()
afterAll(() => smtp.close())

const withSmtp = pgliteWith({ SMTP_URL: `smtp://mailer:s3cret%21@127.0.0.1:${smtp.port}` })

const ask = (browser: Visitor, email: string) =>
  Effect.gen(function* () {
    const form = yield* browser.get("/dashboard/forgot-password")
    return yield* browser.post("/dashboard/forgot-password", { csrf: csrfOf(form.body), email })
  })

/** The mails to `to` so far, once at least `count` have arrived. */
const mailsTo = (to: string, count = 1) =>
  Effect.sync(() => smtp.received.filter((mail) => mail.recipients.includes(to))).pipe(
    Effect.filterOrFail((mails) => mails.length >= count),
    Effect.retry(Schedule.spaced("50 millis")),
    Effect.timeout("10 seconds"),
    Effect.orDie
  )

const sameAnswer = (body: string, email: string) =>
  onPage(body, `If an account uses <strong>${email}</strong>, a link to choose a new password is on its way there.`)

layer(serverWith(servicesOn(withSmtp)).pipe(Layer.provide(quiet)), {
  excludeTestServices: true
})("Forgot password with SMTP_URL", (it) => {
  it.effect("mails a link to the user (To, subject, with the SMTP login); it sets a new password once and ends other sessions", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const elsewhere = yield* signedUp(base, { email: "forgetful@example.com" })
      const browser = visitor(base)
      onPage((yield* browser.get("/dashboard/login")).body, `<a href="/dashboard/forgot-password">Forgot your password?</a>`)
      const answer = yield* ask(browser, " Forgetful@Example.com ")
      expect(answer.status).toBe(200)
      sameAnswer(answer.body, "Forgetful@Example.com")
      const [mail] = yield* mailsTo("forgetful@example.com")
      expect([mail?.login, headerOf(mail?.raw ?? "", "To"), headerOf(mail?.raw ?? "", "Subject")]).toEqual([
        "mailer:s3cret!", "forgetful@example.com", "Reset your Image metadata password"
      ])
      const link = /https:\/\/images\.example\.com(\/dashboard\/reset-password\?token=[A-Za-z0-9_-]+)/.exec(bodyOf(mail?.raw ?? ""))?.[1] ?? ""
      const form = yield* browser.get(link)
      expect(form.status).toBe(200)
      const token = new URL(link, base).searchParams.get("token") ?? ""
      const done = yield* browser.post("/dashboard/reset-password", { csrf: csrfOf(form.body), token, password: "a new passphrase here" })
      expect([done.status, done.location]).toEqual([303, "/dashboard?done=password-reset"])
      expect((yield* elsewhere.get("/dashboard")).status).toBe(303)
      expect((yield* visitor(base).get(link)).status).toBe(410)
    }))

  it.effect("an address without an account gets the same answer and no mail; a malformed one is told so", () =>
    Effect.gen(function* () {
      const browser = visitor(yield* baseUrl)
      const before = smtp.received.length
      const answer = yield* ask(browser, "nobody@example.com")
      expect(answer.status).toBe(200)
      sameAnswer(answer.body, "nobody@example.com")
      const bad = yield* ask(browser, "not an address")
      expect(bad.status).toBe(400)
      onPage(bad.body, `href="#field-email"`)
      yield* Effect.sleep("300 millis")
      expect(smtp.received.length).toBe(before)
    }))

  it.effect(`past ${resetRequests.perAddress} requests from one address in ${Duration.format(resetRequests.window)}, 429 with Retry-After; one address gets at most ${resetRequests.perEmail} mails`, () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      yield* signedUp(base, { email: "flooded@example.com" })
      const browser = visitor(base)
      const statuses: Array<number> = []
      for (let i = 0; i < resetRequests.perAddress; i++) statuses.push((yield* ask(browser, "flooded@example.com")).status)
      expect(statuses.every((status) => status === 200)).toBe(true)
      const refused = yield* ask(browser, "flooded@example.com")
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
      expect((yield* ask(visitor(base), "nobody-else@example.com")).status).toBe(200)
      yield* mailsTo("flooded@example.com", resetRequests.perEmail)
      yield* Effect.sleep("300 millis")
      expect(smtp.received.filter((mail) => mail.recipients.includes("flooded@example.com"))).toHaveLength(resetRequests.perEmail)
    }))
})

layer(serverWith(servicesOn(pglite)).pipe(Layer.provide(quiet)), { excludeTestServices: true })(
  "Forgot password without SMTP_URL",
  (it) => {
    it.effect("the page says to ask the operator, who runs `user reset-link`; a post sends nothing", () =>
      Effect.gen(function* () {
        const base = yield* baseUrl
        yield* signedUp(base, { email: "no-mail@example.com" })
        const browser = visitor(base)
        const page = yield* browser.get("/dashboard/forgot-password")
        onPage(page.body, "This service sends no e-mail", "<code>bun run admin user reset-link EMAIL</code>")
        expect(page.body.includes(`name="email"`)).toBe(false)
        const before = smtp.received.length
        const post = yield* browser.post("/dashboard/forgot-password", { csrf: csrfOf((yield* browser.get("/dashboard/login")).body), email: "no-mail@example.com" })
        onPage(post.body, "This service sends no e-mail")
        expect(smtp.received.length).toBe(before)
      }))
  }
)

it.effect("the start-up summary names the SMTP server but never its password; a URL that is not smtp(s):// stops the start", () =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const capture = Logger.make(({ annotations, message }) => lines.push(JSON.stringify({ message, annotations: Object.fromEntries(annotations) })))
    const start = (url: string) =>
      logSummary("offline").pipe(
        Effect.provide(testSettings({ SMTP_URL: url })),
        Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
        Effect.exit
      )
    expect(Exit.isSuccess(yield* start("smtps://mailer:hunter2-secret@mail.example.com:465"))).toBe(true)
    expect(lines.join("\n")).toContain("smtps://redacted:redacted@mail.example.com:465")
    expect(lines.join("\n")).not.toContain("hunter2")
    expect(lines.join("\n")).toContain("Image metadata <no-reply@images.example.com>")
    for (const url of ["https://mail.example.com", "mail.example.com"]) expect(Exit.isFailure(yield* start(url))).toBe(true)
  }))
