/**
 * The address a request came from, for per-address bounds (failed log-ins, sign-ups).
 *
 * Each reverse proxy in front of the service appends the address it received the request from to
 * `X-Forwarded-For` (nginx: `$proxy_add_x_forwarded_for`). With `trustedProxies` of them, the
 * client is that many entries from the right, counting the socket's peer as the last: entries
 * further left were written by the client and could be anything, so they are never used. With no
 * trusted proxy the header is ignored, or a client could pick a new address for every attempt.
 */
export const clientAddressOf = (request: {
  readonly socket: string | undefined
  readonly forwardedFor: string | undefined
  readonly trustedProxies: number
}): string => {
  const forwarded = request.trustedProxies === 0 || request.forwardedFor === undefined
    ? []
    : request.forwardedFor.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
  const chain = [...forwarded, request.socket ?? "unknown"]
  // Fewer entries than proxies: the request skipped one of them; the furthest known hop is used.
  return chain[Math.max(0, chain.length - 1 - request.trustedProxies)] ?? "unknown"
}
