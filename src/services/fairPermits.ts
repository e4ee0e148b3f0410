/**
 * Permits shared between owners (accounts) such that no owner can hold them all: one account's
 * slow uploads wait behind each other, not in front of everyone else's.
 */
import { Effect } from "effect"

export interface FairPermits {
  /** Runs `effect` holding one of the owner's permits, then one of the shared ones. */
  readonly withPermit: (owner: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

interface OwnerEntry {
  readonly permits: Effect.Semaphore
  /** Requests of this owner holding or waiting for a permit; the entry goes when none are left. */
  users: number
}

/** `total` permits, of which one owner holds at most `perOwner` at a time. */
export const makeFairPermits = (total: number, perOwner: number): Effect.Effect<FairPermits> =>
  Effect.map(Effect.makeSemaphore(total), (shared) => {
    const owners = new Map<string, OwnerEntry>()

    const enter = (owner: string) =>
      Effect.sync(() => {
        const entry = owners.get(owner) ?? { permits: Effect.unsafeMakeSemaphore(perOwner), users: 0 }
        owners.set(owner, entry)
        entry.users++
        return entry
      })
    const leave = (owner: string, entry: OwnerEntry) =>
      Effect.sync(() => {
        if (--entry.users === 0) owners.delete(owner)
      })

    return {
      withPermit: (owner) => (effect) =>
        Effect.acquireUseRelease(
          enter(owner),
          // The owner's permit first: a request over its owner's share waits without taking a
          // shared permit from anyone.
          (entry) => entry.permits.withPermits(1)(shared.withPermits(1)(effect)),
          (entry) => leave(owner, entry)
        )
    }
  })
