/**
 * The URLs the service itself requests: an image's (README, "Images by URL") and a webhook's.
 * A user name or password in one is refused, never sent: a browser's `fetch` refuses them too, and
 * an image URL of a batch item, or a webhook URL, is stored and shown back to the account.
 */

/** `text`, trimmed, as an absolute http or https URL (relative to `base` when given), or null. */
export const parseHttpUrl = (text: string, base?: URL): URL | null => {
  const url = URL.parse(text.trim(), base?.href)
  return url !== null && (url.protocol === "http:" || url.protocol === "https:") ? url : null
}

/** Whether `url` holds a user name or a password. */
export const hasCredentials = (url: URL): boolean => url.username !== "" || url.password !== ""
