/** Pages for requests the dashboard cannot serve. */
import { maxFormBytes } from "../../domain/dashboard.ts"
import { html } from "../html.ts"
import { page, paths } from "./layout.ts"

export const notFoundPage = () =>
  page({
    title: "Page not found",
    body: html`<p>There is no such page on the dashboard. <a href="${paths.overview}">Go to the overview</a>.</p>`
  })

/** A form whose token does not match its session (or that came from another site): nothing was done. */
export const formExpiredPage = () =>
  page({
    title: "This form has expired",
    body: html`<p>Nothing was changed. The form was sent from an old page, or from another site. Go back, reload the page and try again.</p>
    <p><a href="${paths.overview}">Go to the overview</a></p>`
  })

const unreadable = {
  tooLarge: { title: "This form is too large", advice: `A dashboard form holds at most ${maxFormBytes / 1024} KB.` },
  timedOut: { title: "This form took too long to arrive", advice: "Check your connection, go back and try again." },
  broken: { title: "This form could not be read", advice: "Go back and try again." }
} as const

export const formUnreadablePage = (reason: keyof typeof unreadable) =>
  page({
    title: unreadable[reason].title,
    body: html`<p>Nothing was changed. ${unreadable[reason].advice}</p>`
  })

export const serverErrorPage = () =>
  page({
    title: "Something went wrong",
    body: html`<p>Nothing was changed. Try again in a moment.</p><p><a href="${paths.overview}">Go to the overview</a></p>`
  })
