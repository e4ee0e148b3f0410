/**
 * E-mail for the dashboard's "Forgot password" page (README, Dashboard): SMTP through nodemailer
 * when `SMTP_URL` is set (`smtp://` or `smtps://`, with `user:password@` in it), from `MAIL_FROM`.
 * Without it the service sends nothing, and the page says to ask the operator instead.
 */
import { Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { createTransport } from "nodemailer"
import { AppConfig, redactUrl } from "../config.ts"

export class MailFailed extends Schema.TaggedError<MailFailed>()("MailFailed", { message: Schema.String }) {}

export interface Mail {
  readonly to: string
  readonly subject: string
  readonly text: string
}

export class Mailer extends Context.Tag("Mailer")<Mailer, {
  /** Whether `SMTP_URL` is set: the "Forgot password" page sends links only then. */
  readonly enabled: boolean
  readonly send: (mail: Mail) => Effect.Effect<void, MailFailed>
}>() {
  static readonly config = Config.all({
    smtpUrl: Config.option(Config.redacted("SMTP_URL").pipe(
      Config.validate({
        message: "SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtps://user:password@mail.example.com",
        validation: (url) => /^smtps?:\/\/[^/]/i.test(Redacted.value(url)) && URL.canParse(Redacted.value(url))
      })
    )),
    mailFrom: Config.option(Config.string("MAIL_FROM"))
  })

  /** Printed once at start-up, the password redacted; a malformed `SMTP_URL` stops the start. */
  static readonly layer = Layer.effect(
    Mailer,
    Effect.gen(function* () {
      const { mailFrom, smtpUrl } = yield* Mailer.config
      const { publicUrl } = yield* AppConfig
      // The service's own host by default (`PUBLIC_URL`): mail from a made-up domain is often refused.
      const from = Option.getOrElse(mailFrom, () => `Image metadata <no-reply@${URL.canParse(publicUrl) ? new URL(publicUrl).hostname : "localhost"}>`)
      yield* Effect.logInfo("e-mail", {
        smtp: Option.match(smtpUrl, { onNone: () => "unset: password resets go through the operator", onSome: (url) => redactUrl(Redacted.value(url)) }),
        mailFrom: from
      })
      if (Option.isNone(smtpUrl)) return { enabled: false, send: () => Effect.fail(new MailFailed({ message: "SMTP_URL is not set" })) }
      const transport = createTransport(Redacted.value(smtpUrl.value))
      const send = (mail: Mail) =>
        Effect.tryPromise({
          try: () => transport.sendMail({ from, ...mail }),
          // nodemailer's messages name the step and the server's answer, never the password.
          catch: (error) => new MailFailed({ message: error instanceof Error ? error.message : String(error) })
        }).pipe(Effect.asVoid, Effect.withSpan("Mailer.send"))
      return { enabled: true, send }
    })
  ).pipe(Layer.orDie)
}
