/**
 * The memory that describe requests may hold in request bodies at once (`UPLOAD_MEMORY_MB`). A
 * request takes its announced length from the budget before its body is read and gives it back
 * once its image is prepared; past that, only the small prepared image is kept while the model
 * works. Requests beyond the budget wait, their bytes unread in the kernel's buffers. The wait is
 * not counted against `UPLOAD_TIMEOUT_MS`, the client's time to send; keys and credits are checked
 * before it (§4.1 checks 1 and 2), so only callers with credit ever hold the budget.
 *
 * Bodies given back are garbage until the collector runs, and under a burst it ran too late: rounds
 * of 32 uploads of 10 MB each left about 150 MiB more resident than the one before. So once no
 * upload has been held for a second, the budget asks for one collection (docs/BENCHMARKS.md,
 * figure 2). A steady stream of requests never waits that second, so it never pays for one.
 */
import { Context, Duration, Effect, Fiber, Layer, Option, Ref } from "effect"
import { AppConfig } from "../config.ts"

export interface UploadBudgetShape {
  /** Runs `effect` while `bytes` of the budget are held (at most the whole budget). */
  readonly holding: (bytes: number) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** Quiet time after the last upload before garbage is collected. */
export const collectAfter = Duration.seconds(1)

export const make = (bytes: number, collect: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const permits = yield* Effect.makeSemaphore(bytes)
    const scope = yield* Effect.scope
    const held = yield* Ref.make(0)
    const pending = yield* Ref.make(Option.none<Fiber.RuntimeFiber<void>>())

    const cancelCollection = Ref.getAndSet(pending, Option.none()).pipe(
      Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: Fiber.interrupt }))
    )
    const begin = Effect.zipRight(cancelCollection, Ref.update(held, (n) => n + 1))
    const end = Ref.updateAndGet(held, (n) => n - 1).pipe(
      Effect.flatMap((n) =>
        n > 0 ? Effect.void : Effect.delay(collect, collectAfter).pipe(
          // Forked from a release, which is uninterruptible; the wait must stay cancellable.
          Effect.interruptible,
          Effect.forkIn(scope),
          Effect.flatMap((fiber) => Ref.set(pending, Option.some(fiber)))
        )
      )
    )

    return {
      holding: (wanted) => (effect) =>
        permits.withPermits(Math.min(Math.max(wanted, 1), bytes))(
          Effect.acquireUseRelease(begin, () => effect, () => end)
        )
    } satisfies UploadBudgetShape
  })

export class UploadBudget extends Context.Tag("UploadBudget")<UploadBudget, UploadBudgetShape>() {
  /** `UPLOAD_MEMORY_MB`; collects with Bun's garbage collector. */
  static readonly layer: Layer.Layer<UploadBudget, never, AppConfig> = Layer.scoped(
    UploadBudget,
    Effect.flatMap(AppConfig, ({ uploadMemory }) => make(uploadMemory, Effect.sync(() => Bun.gc(true))))
  )
}
