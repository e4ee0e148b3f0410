/**
 * The memory that describe requests may hold in request bodies at once (`UPLOAD_MEMORY_MB`). A
 * request holds its body's bytes from the budget until its image is prepared; past that, only the
 * small prepared image is kept while the model works. A body with a Content-Length takes its whole
 * length before a byte is read, and waits for it unread, its bytes left in the kernel's buffers;
 * that wait has a deadline of its own (http/upload.ts). A chunked body takes its bytes as they
 * arrive, within the upload deadline, so a client trickling one holds only what it has sent. Keys
 * and credits are checked before either (§4.1 checks 1 and 2): only callers with credit ever hold
 * the budget.
 *
 * One account holds at most its share of the budget (`shareOf`), so its slow uploads wait behind
 * each other and another account always finds room beside them (fairPermits.ts).
 *
 * Bodies given back are garbage until the collector runs, and under a burst it ran too late: rounds
 * of 32 uploads of 10 MB each left about 150 MiB more resident than the one before. So once no
 * upload has been held for a second, the budget asks for one collection (docs/BENCHMARKS.md,
 * figure 2). A steady stream of requests never leaves that second, so it never pays for one.
 * The collection runs beside the requests: one that stopped the process while it marked held every
 * request 94 to 131 ms when 1,000 were waiting on the model (docs/BENCHMARKS.md, "the collection
 * that stopped every request").
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import { AppConfig } from "../config/AppConfig.ts"
import { limits } from "../domain/limits.ts"
import { makeWeightedFairPermits } from "./fairPermits.ts"
import { acquireRelease } from "./scopedRelease.ts"

/** One request's share of the budget, given back when its scope closes. */
export interface UploadHold {
  /** Waits until `bytes` more are held; past the account's share, takes what is left of it. */
  readonly take: (bytes: number) => Effect.Effect<void>
}

export interface UploadBudgetShape {
  /** A hold for one request of `owner` (an account). */
  readonly hold: (owner: string) => Effect.Effect<UploadHold, never, Scope.Scope>
}

/**
 * What one account may hold of a budget of `bytes`: half of it, yet never less than one whole body
 * (check 3) nor more than the budget, so one request of any size still goes through alone.
 */
export const shareOf = (bytes: number) => Math.min(bytes, Math.max(Math.floor(bytes / 2), limits.bodyBytes))

/** Quiet time after the last upload before garbage is collected. */
export const collectAfter = Duration.seconds(1)

type Next = { readonly _tag: "stop" } | { readonly _tag: "collect" } | { readonly _tag: "wait"; readonly millis: number }

interface Quiet {
  /** Uploads held now. */
  readonly holds: number
  /** When the last one ended. */
  readonly lastEnd: number
  /** Whether a collection is waiting for quiet. */
  readonly scheduled: boolean
}

export const make = (bytes: number, collect: Effect.Effect<void>, perOwner: number = shareOf(bytes)) =>
  Effect.gen(function* () {
    const permits = yield* makeWeightedFairPermits(bytes, perOwner)
    const scope = yield* Effect.scope
    const state = yield* Ref.make<Quiet>({ holds: 0, lastEnd: 0, scheduled: false })

    // One fiber per quiet spell, forked when the last hold ends: it sleeps until a second after the
    // latest end, and collects if nothing is held by then. Requests never fork or interrupt it.
    const nextStep = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Ref.modify(state, (s): [Next, Quiet] => {
        if (s.holds > 0) return [{ _tag: "stop" }, { ...s, scheduled: false }]
        const millis = s.lastEnd + Duration.toMillis(collectAfter) - now
        return millis > 0 ? [{ _tag: "wait", millis }, s] : [{ _tag: "collect" }, { ...s, scheduled: false }]
      }))
    const collectWhenQuiet: Effect.Effect<void> = Effect.flatMap(nextStep, (next) =>
      next._tag === "stop"
        ? Effect.void
        : next._tag === "collect"
        ? collect
        : Effect.zipRight(Effect.sleep(Duration.millis(next.millis)), Effect.suspend(() => collectWhenQuiet)))

    const begin = Ref.update(state, (s) => ({ ...s, holds: s.holds + 1 }))
    // Runs after the share's own finalizer (acquired later, released first): the bytes are back.
    const end = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const fork = yield* Ref.modify(state, (s): [boolean, Quiet] => {
        const holds = s.holds - 1
        const fork = holds === 0 && !s.scheduled
        return [fork, { holds, lastEnd: now, scheduled: s.scheduled || fork }]
      })
      // Forked from a release, which is uninterruptible; the sleep must stay interruptible.
      if (fork) yield* Effect.forkIn(Effect.interruptible(collectWhenQuiet), scope)
    })

    const hold = (owner: string) =>
      Effect.gen(function* () {
        yield* acquireRelease(begin, () => end)
        const share = yield* permits.share(owner)
        // What this request has asked for, held or waited on: in all, it stays within the share
        // (a wait that is interrupted ends the request, so nothing asks again).
        let asked = 0
        return {
          take: (wanted) =>
            Effect.suspend(() => {
              const n = Math.min(wanted, perOwner - asked)
              if (n <= 0) return Effect.void
              asked += n
              return share.take(n)
            })
        } satisfies UploadHold
      })

    return { hold } satisfies UploadBudgetShape
  })

export class UploadBudget extends Context.Tag("UploadBudget")<UploadBudget, UploadBudgetShape>() {
  /**
   * `UPLOAD_MEMORY_MB`; collects with Bun's garbage collector, concurrently (`Bun.gc(false)`: the
   * marking runs on the collector's threads, the request thread pauses only briefly).
   */
  static readonly layer: Layer.Layer<UploadBudget, never, AppConfig> = Layer.scoped(
    UploadBudget,
    Effect.flatMap(AppConfig, ({ uploadMemory }) => make(uploadMemory, Effect.sync(() => Bun.gc(false))))
  )
}
