/**
 * Host names to addresses, for the image fetch and webhooks (checkedAddress.ts): every address is checked before
 * one is connected to, and the connection is made to that address, never to a second look-up of
 * the name (a DNS answer that changes between the two would get past the check). A reference with
 * the system resolver as its default, so tests can give names answers of their own.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

export interface HostResolverShape {
  /** The addresses of `host`; none when it does not resolve. */
  readonly resolve: (host: string) => Effect.Effect<ReadonlyArray<ResolvedAddress>>
}

/**
 * c-ares, on the event loop, reading `/etc/hosts` first as the system does. Not `node:dns`'s
 * `lookup`: its `getaddrinfo` runs on the native threads that also decode images, and a name whose
 * name server never answers holds one for 10 s, the caller's time-out notwithstanding (found by
 * review: four image URLs of such names, uncharged, held a 1200x900 decode of another account for
 * 9 s, twelve for 19 s).
 */
const system: HostResolverShape = {
  resolve: (host) =>
    Effect.promise(() => Bun.dns.lookup(host, { backend: "c-ares" }).catch(() => [])).pipe(
      Effect.map((found) => found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 })))
    )
}

export class HostResolver extends Context.Reference<HostResolver>()("HostResolver", { defaultValue: () => system }) {
  /** A resolver that knows only `names` (tests: no network, names of our choosing). */
  static readonly fixed = (names: Readonly<Record<string, ReadonlyArray<string>>>): HostResolverShape => ({
    resolve: (host) =>
      Effect.succeed((names[host.toLowerCase()] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 })))
  })
}
