/**
 * Cross-site request forgery checks (README, Dashboard), as pure functions. Every dashboard form carries
 * a token that a page of another site cannot read: the session's own (a synchronizer token) once
 * logged in, and before that the value of a cookie of its own (double submit). A post that a
 * browser says came from another site is refused as well, whatever its token.
 */
import { sameSecret } from "../http/sameSecret.ts"

/** Equal, compared in constant time; an absent or empty token never matches. */
export const sameToken = (given: string | undefined, expected: string | undefined) =>
  given !== undefined && expected !== undefined && given !== "" && expected !== "" && sameSecret(given, expected)

/**
 * Whether a post comes from a page of this site. A browser says so in `Sec-Fetch-Site` (Fetch
 * Metadata), which no page can forge; an older one in `Origin`, compared with the `host` it was
 * sent to (`null`, an opaque origin, never matches). A request with neither is not a browser's
 * form post: its token decides alone.
 */
export const fromThisSite = (request: {
  readonly fetchSite: string | undefined
  readonly origin: string | undefined
  readonly host: string | undefined
}) => {
  if (request.fetchSite !== undefined) return request.fetchSite === "same-origin"
  if (request.origin === undefined) return true
  if (!URL.canParse(request.origin) || request.host === undefined) return false
  return new URL(request.origin).host === request.host.toLowerCase()
}
