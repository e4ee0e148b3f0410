/**
 * The memory that describe requests may hold in request bodies at once (`UPLOAD_MEMORY_MB`). A
 * request holds its body's bytes from the budget until its image is prepared; past that, only the
 * small prepared image is kept while the model works. A body with a Content-Length takes its whole
 * length before a byte is read, and waits for it unread, its bytes left in the kernel's buffers;
 * that wait is not the client's, so it is not counted against `UPLOAD_TIMEOUT_MS`. A chunked body
 * takes its bytes as they arrive, within the upload deadline, so a client trickling one holds only
 * what it has sent. Keys and credits are checked before either (§4.1 checks 1 and 2): only
 * callers with credit ever hold the budget.
 *
 * Bodies given back are garbage until the collector runs, and under a burst it ran too late: rounds
 * of 32 uploads of 10 MB each left about 150 MiB more resident than the one before. So once no
 * upload has been held for a second, the budget asks for one collection (docs/BENCHMARKS.md,
 * figure 2). A steady stream of requests never leaves that second, so it never pays for one.
 */
import { Clock, Context, Duration, Effect, Layer, Ref, Schedule, type Scope } from "effect"
import { AppConfig } from "../config.ts"

/** One request's share of the budget, given back when its scope closes. */
export interface UploadHold {
  /** Waits until `bytes` more are held; past the whole budget, takes what is left of it. */
  readonly take: (bytes: number) => Effect.Effect<void>
}

export interface UploadBudgetShape {
  readonly hold: Effect.Effect<UploadHold, never, Scope.Scope>
}

/** Quiet time after the last upload before garbage is collected, and how often that is checked. */
export const collectAfter = Duration.seconds(1)
const checkEvery = Duration.millis(250)

export const make = (bytes: number, collect: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const permits = yield* Effect.makeSemaphore(bytes)
    // Uploads held now; when the last one ended; whether any ended since the last collection.
    const state = yield* Ref.make({ holds: 0, lastEnd: 0, dirty: false })

    // One background check rather than a timer per request: requests only update `state`.
    const collectIfQuiet = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const due = yield* Ref.modify(state, (s) =>
        s.holds === 0 && s.dirty && now - s.lastEnd >= Duration.toMillis(collectAfter)
          ? [true, { ...s, dirty: false }]
          : [false, s]
      )
      if (due) yield* collect
    })
    yield* Effect.forkScoped(Effect.repeat(collectIfQuiet, Schedule.spaced(checkEvery)))

    const begin = Effect.zipRight(Ref.update(state, (s) => ({ ...s, holds: s.holds + 1 })), Ref.make(0))
    const end = (taken: Ref.Ref<number>) =>
      Effect.gen(function* () {
        yield* permits.release(yield* Ref.get(taken))
        const now = yield* Clock.currentTimeMillis
        yield* Ref.update(state, (s) => ({ holds: s.holds - 1, lastEnd: now, dirty: true }))
      })

    const hold = Effect.map(Effect.acquireRelease(begin, end), (taken): UploadHold => ({
      take: (wanted) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.gen(function* () {
            const n = Math.min(wanted, bytes - (yield* Ref.get(taken)))
            if (n <= 0) return
            yield* restore(permits.take(n))
            yield* Ref.update(taken, (held) => held + n)
          })
        )
    }))

    return { hold } satisfies UploadBudgetShape
  })

export class UploadBudget extends Context.Tag("UploadBudget")<UploadBudget, UploadBudgetShape>() {
  /** `UPLOAD_MEMORY_MB`; collects with Bun's garbage collector. */
  static readonly layer: Layer.Layer<UploadBudget, never, AppConfig> = Layer.scoped(
    UploadBudget,
    Effect.flatMap(AppConfig, ({ uploadMemory }) => make(uploadMemory, Effect.sync(() => Bun.gc(true))))
  )
}
