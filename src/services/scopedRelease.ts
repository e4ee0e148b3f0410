/**
 * `Effect.acquireRelease` and `Effect.addFinalizer` without their fiber-ref bookkeeping, for the
 * resources every request takes (the database session, decode and upload permits, its buffers).
 * Effect's own versions run each finalizer with the fiber refs the acquiring fiber had: two diffs
 * of every fiber ref (the context of some forty services among them) and two patches each time a
 * scope closes, 8.5% of the request thread's time under small uploads (`bun --cpu-prof`,
 * docs/BENCHMARKS.md). These add the finalizer to the scope as it is; they suit a release that
 * reads no fiber ref (no service from the context, no log annotation it must carry).
 */
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"

/** Runs `finalizer` when the current scope closes, with how it closed. */
export const addFinalizer = (
  finalizer: (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<unknown>
): Effect.Effect<void, never, Scope.Scope> => Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizerExit(scope, finalizer))

/** `acquire` and the registration of its `release` in one uninterruptible step. */
export const acquireRelease = <A, E, R>(
  acquire: Effect.Effect<A, E, R>,
  release: (resource: A, exit: Exit.Exit<unknown, unknown>) => Effect.Effect<unknown>
): Effect.Effect<A, E, R | Scope.Scope> =>
  Effect.uninterruptible(Effect.tap(acquire, (resource) => addFinalizer((exit) => release(resource, exit))))
