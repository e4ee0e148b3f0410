/**
 * The address a request came from, for per-address bounds (failed log-ins, sign-ups).
 *
 * Each reverse proxy in front of the service appends the address it received the request from to
 * `X-Forwarded-For` (nginx: `$proxy_add_x_forwarded_for`). With `trustedProxies` of them, the
 * client is that many entries from the right, counting the socket's peer as the last: entries
 * further left were written by the client and could be anything, so they are never used. With no
 * trusted proxy the header is ignored, or a client could pick a new address for every attempt.
 * This holds only while the service is reachable through those proxies alone (README).
 */
import { isIPv4, isIPv6 } from "node:net"

/**
 * One key per client: a port some proxies append is dropped, an IPv4 address mapped into IPv6 is
 * the IPv4 one, and an IPv6 address counts by its /64, the block one subscriber gets (or one
 * client could take a new address per attempt). Anything else is not an address: `undefined`.
 */
export const addressKey = (entry: string): string | undefined => {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry)
  const host = bracketed?.[1] ?? (/^[^:]+:\d+$/.test(entry) ? entry.slice(0, entry.lastIndexOf(":")) : entry)
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(host)
  if (isIPv4(mapped?.[1] ?? host)) return mapped?.[1] ?? host
  if (!isIPv6(host)) return undefined
  return `${ipv6Groups(host).slice(0, 4).join(":")}::/64`
}

/** The eight groups of an IPv6 address, without leading zeros, `::` expanded. */
const ipv6Groups = (address: string): ReadonlyArray<string> => {
  const [head = "", tail] = address.toLowerCase().split("::")
  const groupsOf = (part: string) => (part === "" ? [] : part.split(":"))
  const left = groupsOf(head)
  const right = tail === undefined ? [] : groupsOf(tail)
  const groups = [...left, ...Array.from({ length: 8 - left.length - right.length }, () => "0"), ...right]
  return groups.map((group) => group.replace(/^0+(?=.)/, ""))
}

export const clientAddressOf = (request: {
  readonly socket: string | undefined
  readonly forwardedFor: string | undefined
  readonly trustedProxies: number
}): string => {
  const peer = request.socket === undefined ? undefined : addressKey(request.socket)
  const forwarded = request.trustedProxies === 0 || request.forwardedFor === undefined
    ? []
    : request.forwardedFor.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
  const chain = [...forwarded, request.socket ?? ""]
  // Fewer entries than proxies: the request skipped one of them; the furthest known hop is used.
  const chosen = chain[Math.max(0, chain.length - 1 - request.trustedProxies)] ?? ""
  // A proxy that wrote something other than an address: its own peer counts instead.
  return addressKey(chosen) ?? peer ?? "unknown"
}
