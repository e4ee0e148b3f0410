/** How the dashboard writes dates and numbers: in UTC and in English, the same for every reader. */
import { dayMillis } from "../domain/time.ts"
import { html } from "./html.ts"

const dateTimeFormat = new Intl.DateTimeFormat("en-GB", {
  timeZone: "UTC", year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23"
})
const dayFormat = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short", month: "short", day: "numeric" })
const dateFormat = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", year: "numeric", month: "short", day: "numeric" })

/** `<time>` keeps the exact instant for machines; people read `1 Mar 2026, 12:00 UTC`. */
export const dateTime = (date: Date) => html`<time datetime="${date.toISOString()}">${dateTimeFormat.format(date)} UTC</time>`

export const date = (date: Date) => html`<time datetime="${date.toISOString()}">${dateFormat.format(date)}</time>`

/** A day of a chart, from its `YYYY-MM-DD` label: `Tue, 3 Mar`. */
export const dayText = (isoDay: string) => dayFormat.format(new Date(`${isoDay}T00:00:00Z`))

export const day = (isoDay: string) => html`<time datetime="${isoDay}">${dayText(isoDay)}</time>`

const number = new Intl.NumberFormat("en-GB")

export const count = (n: number) => number.format(n)

export const credits = (n: number) => `${number.format(n)} ${n === 1 ? "credit" : "credits"}`

/**
 * A key's expiry as it was chosen: a date on the form means through that day (UTC), stored as the
 * next midnight (domain/keyForm.ts), so a midnight reads as the day before's end, not as the next
 * day at 00:00. A preset counts from the moment of creation and reads as such.
 */
export const expiry = (at: Date) => {
  if (at.getTime() % dayMillis !== 0) return dateTime(at)
  const lastDay = new Date(at.getTime() - dayMillis)
  return html`<time datetime="${at.toISOString()}">${dateFormat.format(lastDay)} (end of day UTC)</time>`
}
