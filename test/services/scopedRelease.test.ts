import { describe, expect, it } from "@effect/vitest"
import { Deferred, Differ, Effect, Exit, Fiber, FiberRef, Ref, Scope } from "effect"
import { acquireRelease, addFinalizer } from "../../src/services/scopedRelease.ts"

/** A fiber ref whose differ counts its diffs, as the context's differ would run them. */
const countingRef = Effect.gen(function* () {
  let count = 0
  const differ = Differ.make<number, number>({
    empty: 0,
    diff: (oldValue, newValue) => {
      count++
      return newValue - oldValue
    },
    combine: (first, second) => first + second,
    patch: (patch, value) => value + patch
  })
  const ref = FiberRef.unsafeMakePatch(0, { differ, fork: 0 })
  return {
    ref,
    diffs: Effect.sync(() => count),
    reset: Effect.sync(() => {
      count = 0
    })
  }
})

describe("scopedRelease", () => {
  it.effect("the release runs as the scope closes, once, with the resource and how the scope ended", () =>
    Effect.gen(function* () {
      const released = yield* Ref.make<ReadonlyArray<string>>([])
      const record = (label: string) => (resource: string, exit: Exit.Exit<unknown, unknown>) =>
        Ref.update(released, (seen) => [...seen, `${label}:${resource}:${Exit.isSuccess(exit) ? "ok" : "failed"}`])

      yield* Effect.scoped(Effect.zipRight(
        acquireRelease(Effect.succeed("a"), record("first")),
        acquireRelease(Effect.succeed("b"), record("second"))
      ))
      // Released last first, as Effect's own acquireRelease does.
      expect(yield* Ref.get(released)).toStrictEqual(["second:b:ok", "first:a:ok"])

      yield* Ref.set(released, [])
      const failed = yield* Effect.exit(Effect.scoped(Effect.zipRight(acquireRelease(Effect.succeed("c"), record("only")), Effect.fail("boom"))))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(yield* Ref.get(released)).toStrictEqual(["only:c:failed"])
    }))

  it.effect("a resource acquired while its fiber is interrupted is still released", () =>
    Effect.gen(function* () {
      const released = yield* Ref.make(0)
      const acquiring = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(Effect.scoped(
        acquireRelease(Effect.zipRight(Deferred.succeed(acquiring, undefined), Deferred.await(gate)), () => Ref.update(released, (n) => n + 1))
          .pipe(Effect.zipRight(Effect.never))
      ))
      yield* Deferred.await(acquiring)
      const interrupting = yield* Effect.fork(Fiber.interrupt(fiber))
      // The acquisition cannot be cut short; its resource is released once the interruption lands.
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(interrupting)
      expect(yield* Ref.get(released)).toBe(1)
    }))

  it.effect("closing the scope diffs no fiber ref (Effect's acquireRelease diffs each one twice per release)", () =>
    Effect.gen(function* () {
      const { ref, diffs, reset } = yield* countingRef
      yield* FiberRef.set(ref, 1)
      const scope = yield* Scope.make()
      yield* Scope.extend(Effect.zipRight(acquireRelease(Effect.void, () => Effect.void), addFinalizer(() => Effect.void)), scope)
      yield* FiberRef.set(ref, 2)
      yield* reset
      yield* Scope.close(scope, Exit.void)
      expect(yield* diffs).toBe(0)

      // The same with Effect's own: what this module saves on every request.
      const effects = yield* Scope.make()
      yield* Scope.extend(Effect.acquireRelease(Effect.void, () => Effect.void), effects)
      yield* FiberRef.set(ref, 3)
      yield* reset
      yield* Scope.close(effects, Exit.void)
      expect(yield* diffs).toBe(2)
    }))
})
