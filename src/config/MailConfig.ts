/**
 * E-mail settings (README, Dashboard): `SMTP_URL` (`smtp://` or `smtps://`, with `user:password@`
 * in it) and `MAIL_FROM`, read with every other section (Settings.ts).
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { redactUrl } from "./redact.ts"

export class MailConfig extends Context.Tag("MailConfig")<MailConfig, {
  /** Unset: the service sends nothing, and "Forgot password" says to ask the operator. */
  readonly smtpUrl: Option.Option<Redacted.Redacted>
  /** Unset: `no-reply@` the host of `PUBLIC_URL` (services/Mailer.ts). */
  readonly mailFrom: Option.Option<string>
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
}

/** The sender: `MAIL_FROM`, else the service's own host (`PUBLIC_URL`): mail from a made-up domain is often refused. */
export const mailSender = (config: Context.Tag.Service<MailConfig>, publicUrl: string) =>
  Option.getOrElse(config.mailFrom, () => `Image metadata <no-reply@${URL.canParse(publicUrl) ? new URL(publicUrl).hostname : "localhost"}>`)

/** The mail part of the start-up summary, by variable: the password redacted. */
export const mailSummary = (config: Context.Tag.Service<MailConfig>, publicUrl: string) => ({
  SMTP_URL: Option.match(config.smtpUrl, { onNone: () => "unset: password resets go through the operator", onSome: (url) => redactUrl(Redacted.value(url)) }),
  MAIL_FROM: mailSender(config, publicUrl)
})
