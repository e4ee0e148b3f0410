/**
 * Which addresses an image URL may reach (README, "Images by URL"): public unicast only, unless the
 * operator allows a host name or a range (`IMAGE_URL_ALLOW`). Anything else a server-side fetch
 * could reach inside our network (SSRF): loopback, private, link-local (with the cloud metadata
 * address 169.254.169.254), unique-local, CGNAT, multicast, unspecified, documentation, benchmark
 * and reserved ranges, and IPv6 forms that carry an IPv4 address (mapped, NAT64), checked as it.
 */
import { isIPv4, isIPv6 } from "node:net"

/** An address as a number (32 bits for IPv4, 128 for IPv6) with its family. */
interface Address {
  readonly v6: boolean
  readonly value: bigint
}

interface Range {
  readonly v6: boolean
  readonly base: bigint
  readonly bits: number
}

const ipv4Value = (text: string): bigint =>
  text.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n)

/** RFC 4291 §2.2 text, `::` and a dotted IPv4 tail included; `text` is known valid. */
const ipv6Value = (text: string): bigint => {
  const groupsOf = (side: string): Array<bigint> =>
    side === "" ? [] : side.split(":").flatMap((group) => {
      if (!group.includes(".")) return [BigInt(`0x${group}`)]
      const v4 = ipv4Value(group)
      return [v4 >> 16n, v4 & 0xffffn]
    })
  const [head = "", tail] = text.split("::")
  const left = groupsOf(head)
  const right = tail === undefined ? [] : groupsOf(tail)
  const groups = [...left, ...Array<bigint>(8 - left.length - right.length).fill(0n), ...right]
  return groups.reduce((acc, group) => (acc << 16n) | group, 0n)
}

/** The address in `text` (a zone index such as `%eth0` is dropped), or undefined. */
export const parseAddress = (text: string): Address | undefined => {
  const bare = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "")
  if (isIPv4(bare)) return { v6: false, value: ipv4Value(bare) }
  if (isIPv6(bare)) return { v6: true, value: ipv6Value(bare) }
  return undefined
}

/** `a.b.c.d/n` or `x::/n`, or a single address; undefined when not one. */
export const parseRange = (text: string): Range | undefined => {
  const [addressText = "", bitsText, ...rest] = text.trim().split("/")
  const address = parseAddress(addressText)
  const max = address?.v6 === true ? 128 : 32
  const bits = bitsText === undefined ? max : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : -1
  if (address === undefined || rest.length > 0 || bits < 0 || bits > max) return undefined
  return { v6: address.v6, base: address.value, bits }
}

const inRange = (address: Address, range: Range): boolean => {
  if (address.v6 !== range.v6) return false
  const shift = BigInt((range.v6 ? 128 : 32) - range.bits)
  return address.value >> shift === range.base >> shift
}

const ranges = (texts: ReadonlyArray<string>) => texts.map((text) => parseRange(text) as Range)

/** IPv4 ranges that are not public unicast (RFC 6890 and its updates). */
const notPublicV4 = ranges([
  "0.0.0.0/8", // "this network", 0.0.0.0 unspecified
  "10.0.0.0/8", // private
  "100.64.0.0/10", // CGNAT
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local, the metadata address 169.254.169.254
  "172.16.0.0/12", // private
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // documentation
  "192.88.99.0/24", // 6to4 relay anycast
  "192.168.0.0/16", // private
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation
  "203.0.113.0/24", // documentation
  "224.0.0.0/4", // multicast
  "240.0.0.0/4" // reserved, the broadcast address
])

/** IPv6 forms that carry an IPv4 address in their last 32 bits: checked as that address. */
const carriesV4 = ranges(["::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48"])

/** Global unicast (2000::/3) less the ranges in it that are not public; all else is refused. */
const globalV6 = parseRange("2000::/3") as Range
const notPublicV6 = ranges([
  "2001::/23", // IETF protocol assignments (Teredo included)
  "2001:db8::/32", // documentation
  "2002::/16", // 6to4
  "3fff::/20" // documentation
])

/** Whether `text` is a public unicast address (false for anything that is not an address). */
export const isPublicAddress = (text: string): boolean => {
  const address = parseAddress(text)
  if (address === undefined) return false
  if (!address.v6) return !notPublicV4.some((range) => inRange(address, range))
  if (carriesV4.some((range) => inRange(address, range))) {
    return isPublicAddress([24n, 16n, 8n, 0n].map((shift) => (address.value >> shift) & 0xffn).join("."))
  }
  return inRange(address, globalV6) && !notPublicV6.some((range) => inRange(address, range))
}

/** What the operator allows beyond public addresses: host names, and ranges (`IMAGE_URL_ALLOW`). */
export interface AllowList {
  readonly hosts: ReadonlySet<string>
  readonly ranges: ReadonlyArray<Range>
}

export const noneAllowed: AllowList = { hosts: new Set(), ranges: [] }

/**
 * `IMAGE_URL_ALLOW`: comma-separated host names, addresses and CIDR ranges. An entry that parses
 * as neither a range nor a host name is returned in `invalid`, for the configuration to refuse.
 */
export const parseAllowList = (text: string): { readonly allow: AllowList; readonly invalid: ReadonlyArray<string> } => {
  const entries = text.split(",").map((entry) => entry.trim().toLowerCase()).filter((entry) => entry !== "")
  const hosts = new Set<string>()
  const allowed: Array<Range> = []
  const invalid: Array<string> = []
  for (const entry of entries) {
    const range = parseRange(entry)
    if (range !== undefined) allowed.push(range)
    else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry)) hosts.add(entry)
    else invalid.push(entry)
  }
  return { allow: { hosts, ranges: allowed }, invalid }
}

/** Whether a hop to `host` (a URL's host name) may connect to `address`. */
export const mayConnect = (allow: AllowList, host: string, address: string): boolean => {
  if (allow.hosts.has(host.toLowerCase().replace(/^\[|\]$/g, ""))) return true
  const parsed = parseAddress(address)
  if (parsed !== undefined && allow.ranges.some((range) => inRange(parsed, range))) return true
  return isPublicAddress(address)
}
