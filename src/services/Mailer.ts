/**
 * E-mail for the dashboard's "Forgot password" page (README, Dashboard): SMTP through nodemailer
 * when `SMTP_URL` is set, from `MAIL_FROM` (config/MailConfig.ts).
 * Without it the service sends nothing, and the page says to ask the operator instead.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { AppConfig } from "../config/AppConfig.ts"
import { MailConfig, mailSender } from "../config/MailConfig.ts"
import { messageOf } from "./messageOf.ts"

/**
 * A failure's message as logged: nodemailer's, which names the step and the server's answer (never
 * the SMTP password), with every e-mail address in it replaced, since a server refusing a
 * recipient quotes it ("550 5.1.1 <carol@example.com>: Recipient address rejected"; found by
 * review), quoted local parts and address literals too. README, Dashboard: a sending failure is
 * logged without the address.
 */
export const withoutAddresses = (message: string) =>
  message.replace(/(?:"[^"]*"|[^\s<>"(),;:[\]@]+)@(?:\[[^\]]*\]|[^\s<>"'(),;:[\]@]+)/g, "<address>")

export class MailFailed extends Schema.TaggedError<MailFailed>()("MailFailed", { message: Schema.String }) {}

export interface Mail {
  readonly to: string
  readonly subject: string
  readonly text: string
}

export const smtpWithoutPublicUrl = (publicUrl: string) =>
  `SMTP_URL is set but PUBLIC_URL is not: password-reset e-mails link to ${publicUrl}, which only this machine reaches. ` +
  "Set PUBLIC_URL to the address people use."

export class Mailer extends Context.Tag("Mailer")<Mailer, {
  /** Whether `SMTP_URL` is set: the "Forgot password" page sends links only then. */
  readonly enabled: boolean
  readonly send: (mail: Mail) => Effect.Effect<void, MailFailed>
}>() {
  /** From the mail settings (config/MailConfig.ts), shown in the start-up summary. */
  static readonly layer = Layer.effect(
    Mailer,
    Effect.gen(function* () {
      const mail = yield* MailConfig
      const smtpUrl = mail.smtpUrl
      const { publicUrl, publicUrlSet } = yield* AppConfig
      const from = mailSender(mail, publicUrl)
      if (Option.isNone(smtpUrl)) return { enabled: false, send: () => Effect.fail(new MailFailed({ message: "SMTP_URL is not set" })) }
      // Said at start-up, not found out by the first user whose reset link leads nowhere.
      if (!publicUrlSet) yield* Effect.logWarning(smtpWithoutPublicUrl(publicUrl))
      // Loaded only when used: nodemailer alone is some 19 MiB resident (docs/BENCHMARKS.md).
      const { createTransport } = yield* Effect.promise(() => import("nodemailer"))
      const transport = createTransport(Redacted.value(smtpUrl.value))
      const send = (mail: Mail) =>
        Effect.tryPromise({
          try: () => transport.sendMail({ from, ...mail }),
          catch: (error) => new MailFailed({ message: withoutAddresses(messageOf(error)) })
        }).pipe(Effect.asVoid, Effect.withSpan("Mailer.send"))
      return { enabled: true, send }
    })
  )
}
