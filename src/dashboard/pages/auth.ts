/**
 * The pages before a session: log-in, sign-up, accepting an operator's invitation, and an
 * operator's password-reset link (README, Dashboard and Operator CLI).
 */
import { passwordLength } from "../../domain/credentials.ts"
import { html } from "../html.ts"
import { csrfInput, errorSummary, field } from "./components.ts"
import type { Problem } from "./components.ts"
import { page, paths } from "./layout.ts"

export interface LoginView {
  readonly csrfToken: string
  readonly email?: string | undefined
  readonly problem?: Problem | undefined
  readonly notice?: string | undefined
  readonly signupOpen: boolean
}

export const loginPage = (view: LoginView) =>
  page({
    title: "Log in",
    notice: view.notice,
    body: html`${errorSummary(view.problem)}
    <form method="post" action="${paths.login}" novalidate>
      ${csrfInput(view.csrfToken)}
      ${field({ name: "email", label: "E-mail address", type: "email", autocomplete: "username", required: true, value: view.email, error: view.problem })}
      ${field({ name: "password", label: "Password", type: "password", autocomplete: "current-password", required: true })}
      <button type="submit">Log in</button>
    </form>
    <p><a href="${paths.forgotPassword}">Forgot your password?</a></p>
    ${view.signupOpen
      ? html`<p>No account yet? <a href="${paths.signup}">Create an account</a>.</p>`
      : html`<p>New accounts are made by invitation: ask the operator of this service.</p>`}`
  })

export interface SignupView {
  readonly csrfToken: string
  readonly name?: string | undefined
  readonly email?: string | undefined
  readonly problem?: Problem | undefined
  readonly open: boolean
}

export const signupPage = (view: SignupView) =>
  page({
    title: "Create an account",
    body: view.open
      ? html`${errorSummary(view.problem)}
    <form method="post" action="${paths.signup}" novalidate>
      ${csrfInput(view.csrfToken)}
      ${field({ name: "name", label: "Account name", hint: "Your name or your organisation's, as your dashboard shows it.", autocomplete: "organization", required: true, value: view.name, error: view.problem })}
      ${field({ name: "email", label: "E-mail address", type: "email", autocomplete: "email", required: true, value: view.email, error: view.problem })}
      ${field({ name: "password", label: "Password", type: "password", autocomplete: "new-password", hint: `At least ${passwordLength.min} characters.`, required: true, error: view.problem })}
      <button type="submit">Create account</button>
    </form>
    <p>Have an account? <a href="${paths.login}">Log in</a>.</p>`
      : html`<p>Sign-up is closed on this service. New accounts are made by invitation: ask its operator.</p>
    <p>Have an account? <a href="${paths.login}">Log in</a>.</p>`
  })

export interface InvitationView {
  readonly csrfToken: string
  readonly token: string
  readonly email: string
  readonly problem?: Problem | undefined
}

export const invitationPage = (view: InvitationView) =>
  page({
    title: "Accept your invitation",
    body: html`${errorSummary(view.problem)}
    <p>Choose a password for <strong>${view.email}</strong>. You log in with this address and password.</p>
    <form method="post" action="${paths.invitation}" novalidate>
      ${csrfInput(view.csrfToken)}
      <input type="hidden" name="token" value="${view.token}">
      ${field({ name: "password", label: "Password", type: "password", autocomplete: "new-password", hint: `At least ${passwordLength.min} characters.`, required: true, error: view.problem })}
      <button type="submit">Set password and log in</button>
    </form>`
  })

export const invitationInvalidPage = () =>
  page({
    title: "This invitation cannot be used",
    body: html`<p>The link may have been used already, or it has expired. Ask the operator of this service for a new invitation.</p>
    <p>Accepted it already? <a href="${paths.login}">Log in</a>.</p>`
  })

export interface PasswordResetView {
  readonly csrfToken: string
  readonly token: string
  readonly email: string
  readonly problem?: Problem | undefined
}

export const passwordResetPage = (view: PasswordResetView) =>
  page({
    title: "Choose a new password",
    body: html`${errorSummary(view.problem)}
    <p>Choose a new password for <strong>${view.email}</strong>. Setting it logs you out everywhere else.</p>
    <form method="post" action="${paths.resetPassword}" novalidate>
      ${csrfInput(view.csrfToken)}
      <input type="hidden" name="token" value="${view.token}">
      ${field({ name: "password", label: "New password", type: "password", autocomplete: "new-password", hint: `At least ${passwordLength.min} characters.`, required: true, error: view.problem })}
      <button type="submit">Set password and log in</button>
    </form>`
  })

export const passwordResetInvalidPage = () =>
  page({
    title: "This password-reset link cannot be used",
    body: html`<p>The link may have been used already, it has expired (a link works for 24 hours), or it was not copied whole.
    Ask the operator of this service for a new link, or <a href="${paths.forgotPassword}">ask for one here</a>.</p>
    <p>Know your password? <a href="${paths.login}">Log in</a>.</p>`
  })

/** The operator's command that makes a reset link, for services that send no e-mail. */
const operatorCommand = html`<code>bun run admin user reset-link EMAIL</code>`

export interface ForgotPasswordView {
  readonly csrfToken: string
  /** `SMTP_URL` is set: the page sends the link; otherwise it says to ask the operator. */
  readonly mailEnabled: boolean
  readonly email?: string | undefined
  readonly problem?: Problem | undefined
  /** The form was sent: the same answer whether or not the address has an account. */
  readonly sent?: boolean
}

export const forgotPasswordPage = (view: ForgotPasswordView) =>
  page({
    title: "Forgot your password?",
    body: !view.mailEnabled
      ? html`<p>This service sends no e-mail. Ask its operator for a password-reset link: they make one with ${operatorCommand}.</p>
    <p>Remember it after all? <a href="${paths.login}">Log in</a>.</p>`
      : view.sent
      ? html`<p role="status">If an account uses <strong>${view.email}</strong>, a link to choose a new password is on its way there.
    It works once, for 24 hours. Nothing arrived? Check your spam folder, or ask the operator of this service.</p>
    <p><a href="${paths.login}">Back to log in</a></p>`
      : html`${errorSummary(view.problem)}
    <p>Enter the e-mail address you log in with: we send a link to choose a new password to it.</p>
    <form method="post" action="${paths.forgotPassword}" novalidate>
      ${csrfInput(view.csrfToken)}
      ${field({ name: "email", label: "E-mail address", type: "email", autocomplete: "username", required: true, value: view.email, error: view.problem })}
      <button type="submit">Send the link</button>
    </form>
    <p>Remember it after all? <a href="${paths.login}">Log in</a>.</p>`
  })
