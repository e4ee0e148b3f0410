/** Pages for requests the dashboard cannot serve. */
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

export const formUnreadablePage = () =>
  page({
    title: "This form could not be read",
    body: html`<p>Nothing was changed. Go back and try again.</p>`
  })

export const serverErrorPage = () =>
  page({
    title: "Something went wrong",
    body: html`<p>Nothing was changed. Try again in a moment.</p><p><a href="${paths.overview}">Go to the overview</a></p>`
  })
