/** Mail for "Forgot password" (README, Dashboard): a failure says what went wrong, never to whom. */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either, Logger } from "effect"
import { Mailer, withoutAddresses } from "../../src/services/Mailer.ts"
import { testSettings } from "../support/config.ts"
import { refusedRecipient, startSmtp } from "../support/smtp.ts"

const smtp = await startSmtp()
afterAll(() => smtp.close())

describe("Mailer", () => {
  it.effect("a recipient the server refuses fails with the server's answer, the address left out", () =>
    Effect.gen(function* () {
      const mailer = yield* Mailer
      const to = `${refusedRecipient}carol@victim-corp.example`
      const failed = yield* Effect.either(mailer.send({ to, subject: "Reset", text: "link" }))
      expect(Either.isLeft(failed)).toBe(true)
      const message = Either.isLeft(failed) ? failed.left.message : ""
      expect(message).toContain("550 5.1.1 <<address>>: Recipient address rejected")
      expect(message).not.toContain("victim-corp")
    }).pipe(Effect.provide(Mailer.layer), Effect.provide(testSettings({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}` }))))

  it.effect("SMTP_URL without PUBLIC_URL is said at start-up as a warning (reset links would lead to localhost); with it, nothing", () =>
    Effect.gen(function* () {
      const warnings = (variables: Record<string, string | undefined>) =>
        Effect.gen(function* () {
          const said: Array<unknown> = []
          const collecting = Logger.make(({ logLevel, message }) => {
            if (logLevel._tag === "Warning") said.push(message)
          })
          yield* Effect.provide(Mailer, Mailer.layer).pipe(
            Effect.provide(testSettings({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, ...variables })),
            Effect.provide(Logger.replace(Logger.defaultLogger, collecting))
          )
          return said.flat()
        })
      const without = yield* warnings({ PUBLIC_URL: undefined })
      expect(without).toHaveLength(1)
      expect(String(without[0])).toMatch(/^SMTP_URL is set but PUBLIC_URL is not: password-reset e-mails link to http:\/\/localhost:\d+, /)
      expect(yield* warnings({})).toEqual([])
    }))

  it("replaces every address, however it is quoted, and nothing else", () => {
    expect(withoutAddresses(`Can't send mail - all recipients were rejected: 550 <a.b+c@x.example>: no; "d@e.org", (f@g.h)`))
      .toBe(`Can't send mail - all recipients were rejected: 550 <<address>>: no; "<address>", (<address>)`)
    expect(withoutAddresses(`550 <"john.doe"@example.com>, <carol@[192.0.2.1]>, <o'brien@example.org>`))
      .toBe("550 <<address>>, <<address>>, <<address>>")
    expect(withoutAddresses("connect ECONNREFUSED 127.0.0.1:25")).toBe("connect ECONNREFUSED 127.0.0.1:25")
  })
})
