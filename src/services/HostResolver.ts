/**
 * Host names to addresses, for the image fetch and webhooks (checkedAddress.ts): every address is checked before
 * one is connected to, and the connection is made to that address, never to a second look-up of
 * the name (a DNS answer that changes between the two would get past the check). A reference with
 * the system resolver as its default, so tests can give names answers of their own.
 */
import { lookup } from "node:dns/promises"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

export interface HostResolverShape {
  /** The addresses of `host`; none when it does not resolve. */
  readonly resolve: (host: string) => Effect.Effect<ReadonlyArray<ResolvedAddress>>
}

const system: HostResolverShape = {
  resolve: (host) =>
    Effect.promise(() => lookup(host, { all: true, verbatim: true }).catch(() => [])).pipe(
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

/**
 * `resolver`, one look-up at a time. The system resolver runs on libuv's few threads
 * (`UV_THREADPOOL_SIZE`, 4), and a look-up given up on (a webhook's time-out) keeps its thread
 * until the name server answers or gives up: webhooks to names that never resolve held all of
 * them, and image URLs waited 8 s for their own look-ups (found by review). The turn is held
 * until the look-up itself has ended, not only until its caller has stopped waiting.
 */
export const oneAtATime = (resolver: HostResolverShape): HostResolverShape => {
  const turn = Effect.unsafeMakeSemaphore(1)
  return {
    resolve: (host) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(
          restore(turn.take(1)),
          Effect.flatMap(Effect.forkDaemon(Effect.ensuring(resolver.resolve(host), turn.release(1))), (lookup) => restore(Fiber.join(lookup)))
        ))
  }
}
