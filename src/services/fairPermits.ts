/**
 * Permits shared between owners (accounts) such that no owner can hold them all: one account's
 * slow uploads wait behind each other, not in front of everyone else's. Weighted: a share takes
 * any number of permits, a few at a time if it likes (the upload budget's bytes, UploadBudget.ts);
 * `makeFairPermits` is the one-permit case (decode slots, Images.ts).
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { type FifoSemaphore, makeFifoSemaphore, unsafeMakeFifoSemaphore } from "./fifoSemaphore.ts"
import { acquireRelease } from "./scopedRelease.ts"

/** One request's permits, given back when the scope it was taken in closes. */
export interface OwnerShare {
  /** Waits until `n` more are held: the owner's first, then the shared ones. */
  readonly take: (n: number) => Effect.Effect<void>
}

export interface WeightedFairPermits {
  readonly share: (owner: string) => Effect.Effect<OwnerShare, never, Scope.Scope>
}

export interface FairPermits {
  /** Runs `effect` holding one of the owner's permits, then one of the shared ones. */
  readonly withPermit: (owner: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

interface OwnerEntry {
  readonly permits: FifoSemaphore
  /** Requests of this owner holding or waiting for a permit; the entry goes when none are left. */
  users: number
}

/**
 * `total` permits, of which one owner holds at most `perOwner` at a time. A share asking for more
 * than `perOwner` in all waits forever: callers cap what they ask for.
 */
export const makeWeightedFairPermits = (total: number, perOwner: number): Effect.Effect<WeightedFairPermits> =>
  Effect.map(makeFifoSemaphore(total), (shared) => {
    const owners = new Map<string, OwnerEntry>()

    const enter = (owner: string) =>
      Effect.sync(() => {
        const entry = owners.get(owner) ?? { permits: unsafeMakeFifoSemaphore(perOwner), users: 0 }
        owners.set(owner, entry)
        entry.users++
        return { entry, own: 0, common: 0 }
      })
    const leave = (owner: string, held: { readonly entry: OwnerEntry; readonly own: number; readonly common: number }) =>
      Effect.zipRight(
        Effect.zipRight(shared.release(held.common), held.entry.permits.release(held.own)),
        Effect.sync(() => {
          if (--held.entry.users === 0) owners.delete(owner)
        })
      )

    return {
      share: (owner) =>
        Effect.map(acquireRelease(enter(owner), (held) => leave(owner, held)), (held): OwnerShare => ({
          // The owner's permits first: a request over its owner's share waits without taking
          // shared permits from anyone. Each count is kept as soon as its permits are taken, so
          // an interruption between the two gives back exactly what was held.
          take: (n) =>
            Effect.uninterruptibleMask((restore) =>
              Effect.gen(function* () {
                yield* restore(held.entry.permits.take(n))
                held.own += n
                yield* restore(shared.take(n))
                held.common += n
              })
            )
        }))
    }
  })

/** `total` permits, of which one owner holds at most `perOwner` at a time. */
export const makeFairPermits = (total: number, perOwner: number): Effect.Effect<FairPermits> =>
  Effect.map(makeWeightedFairPermits(total, perOwner), (weighted) => ({
    // A scope of its own, so an `effect` that needs a Scope still gets the caller's.
    withPermit: (owner) => (effect) =>
      Effect.scopedWith((scope) =>
        Effect.flatMap(Scope.extend(weighted.share(owner), scope), (share) => share.take(1)).pipe(Effect.zipRight(effect))
      )
  }))
