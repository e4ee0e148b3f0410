/**
 * The address a server-side request may connect to (SSRF, README "Images by URL"), shared by the
 * image fetch (ImageFetcher.ts) and webhook deliveries (WebhookDelivery.ts): every address of the
 * URL's host is resolved here and checked (domain/publicAddress.ts), and the connection is then
 * made to the checked address through `checkedLookup`, never to a second look-up of the name (a DNS
 * answer that changes between the two would get past the check).
 */
import type { LookupFunction } from "node:net"
import * as Arr from "effect/Array"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { type AllowList, mayConnect, parseAddress } from "../domain/publicAddress.ts"
import { HostResolver, type ResolvedAddress } from "./HostResolver.ts"

/** One of the host's addresses is not one we may reach. */
export class AddressRefused extends Data.TaggedError("AddressRefused")<{ readonly reason: string }> {}

/** The host name has no address. */
export class HostUnresolved extends Data.TaggedError("HostUnresolved")<{}> {}

/** The addresses to connect to for `url`, in the resolver's order: every one must be one we may reach. */
export const checkedAddresses = (
  allow: AllowList,
  url: URL
): Effect.Effect<Arr.NonEmptyReadonlyArray<ResolvedAddress>, AddressRefused | HostUnresolved> =>
  Effect.gen(function* () {
    const host = url.hostname.replace(/^\[|\]$/g, "")
    const literal = parseAddress(host)
    const addresses: ReadonlyArray<ResolvedAddress> = literal !== undefined
      ? [{ address: host, family: literal.v6 ? 6 : 4 }]
      : yield* Effect.flatMap(HostResolver, (resolver) => resolver.resolve(host))
    if (!Arr.isNonEmptyReadonlyArray(addresses)) return yield* new HostUnresolved()
    const refused = addresses.find(({ address }) => !mayConnect(allow, host, address))
    if (refused !== undefined) return yield* new AddressRefused({ reason: `${host} resolves to ${refused.address}` })
    return addresses
  })

/**
 * `attempt` on each address in turn while it fails to connect (`unconnected`): a host's first
 * address may be down (a round-robin name with a dead node), and browsers and curl go on to the
 * next (found by review: the first alone was tried).
 */
export const onEachAddress = <A, E>(
  addresses: Arr.NonEmptyReadonlyArray<ResolvedAddress>,
  attempt: (address: ResolvedAddress) => Effect.Effect<A, E>,
  unconnected: (error: E) => boolean
): Effect.Effect<A, E> =>
  addresses.slice(1).reduce((tried, next) => Effect.catchIf(tried, unconnected, () => attempt(next)), attempt(Arr.headNonEmpty(addresses)))

/** Answers every look-up, whatever it asks for, with the address checked (no second DNS query). */
export const checkedLookup = (checked: ResolvedAddress): LookupFunction => (_host, options, callback) =>
  options.all === true
    ? (callback as (error: null, addresses: ReadonlyArray<ResolvedAddress>) => void)(null, [checked])
    : callback(null, checked.address, checked.family)
