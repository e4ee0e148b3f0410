/**
 * The dashboard's failures (README, Dashboard), as typed errors. The dashboard's pages turn each into a
 * message for the person at the keyboard; nothing here knows about HTTP or HTML.
 */
import * as Schema from "effect/Schema"

/** A form field breaks a rule; `field` names the input, `message` says what to change. */
export class FormInvalid extends Schema.TaggedError<FormInvalid>()("FormInvalid", {
  field: Schema.String,
  message: Schema.String
}) {}

/** The operator turned sign-up off (`SIGNUP=closed`); invitations still work. */
export class SignupClosed extends Schema.TaggedError<SignupClosed>()("SignupClosed", {}) {}

/**
 * The e-mail address is taken: by a dashboard user (or an invited one), or by an account an
 * operator made without one (`byAccount`), which only an operator's `user invite` opens.
 */
export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", { byAccount: Schema.Boolean }) {}

/** No dashboard user has this e-mail address (an operator's `user reset-link`). */
export class UserNotFound extends Schema.TaggedError<UserNotFound>()("UserNotFound", { email: Schema.String }) {}

/** Unknown e-mail address or wrong password: one error, so a page never tells which. */
export class LoginFailed extends Schema.TaggedError<LoginFailed>()("LoginFailed", {}) {}

/** The right password, for a user of an account an operator deleted: no session would last. */
export class AccountClosed extends Schema.TaggedError<AccountClosed>()("AccountClosed", {}) {}

/** Too many failed log-ins for this account or from this address lately. */
export class LoginThrottled extends Schema.TaggedError<LoginThrottled>()("LoginThrottled", {
  retryAfterSeconds: Schema.Number
}) {}

/** Too many sign-ups from this address lately. */
export class SignupThrottled extends Schema.TaggedError<SignupThrottled>()("SignupThrottled", {
  retryAfterSeconds: Schema.Number
}) {}

/** Too many "Forgot password" requests from this address lately. */
export class ResetThrottled extends Schema.TaggedError<ResetThrottled>()("ResetThrottled", {
  retryAfterSeconds: Schema.Number
}) {}

/** An invitation token that is unknown, used, or past its expiry. */
export class InvitationInvalid extends Schema.TaggedError<InvitationInvalid>()("InvitationInvalid", {}) {}

/**
 * A password-reset token that cannot be used: `unknown` (never made, or mistyped), or `spent`
 * (used already, or past its expiry). Either way the operator makes a new link.
 */
export class PasswordResetInvalid extends Schema.TaggedError<PasswordResetInvalid>()("PasswordResetInvalid", {
  reason: Schema.Literal("unknown", "spent")
}) {}

/** No session cookie, or one that is forged, expired, or ended by a log-out. */
export class SessionMissing extends Schema.TaggedError<SessionMissing>()("SessionMissing", {}) {}

/** A form post without the token of the page that showed the form, or from another origin. */
export class CsrfRejected extends Schema.TaggedError<CsrfRejected>()("CsrfRejected", {}) {}

/** Log-in, sign-up and key forms are small; a body bigger than this is not one of them. */
export const maxFormBytes = 16 * 1024

/**
 * A form body that was not read to its end: over the dashboard's small-form limit (`tooLarge`),
 * not in by its deadline (`timedOut`), or cut off by the client (`broken`).
 */
export class FormUnreadable extends Schema.TaggedError<FormUnreadable>()("FormUnreadable", {
  reason: Schema.Literal("tooLarge", "timedOut", "broken")
}) {}
