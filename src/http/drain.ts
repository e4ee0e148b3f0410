/**
 * Graceful shutdown (README, Operations: Shutdown). On SIGTERM the runtime closes the application's scope; before
 * the server interrupts what is still running, this waits (up to `SHUTDOWN_TIMEOUT_MS`) for
 * in-flight requests to finish. Meanwhile `/readyz` answers 503 so a load balancer stops sending.
 * Requests still running at the deadline are interrupted, which releases their credits.
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../config/AppConfig.ts"

export class Drain extends Context.Tag("Drain")<Drain, {
  readonly inFlight: Ref.Ref<number>
  readonly draining: Ref.Ref<boolean>
}>() {
  static readonly layer = Layer.effect(
    Drain,
    Effect.all({ inFlight: Ref.make(0), draining: Ref.make(false) })
  )
}

/** Counts the requests in flight. */
export const trackInFlight = HttpMiddleware.make((app) =>
  Effect.flatMap(Drain, ({ inFlight }) =>
    Effect.acquireUseRelease(Ref.update(inFlight, (n) => n + 1), () => app, () => Ref.update(inFlight, (n) => n - 1))
  )
)

/** Build it after the server, so that on close it runs before the server stops its requests. */
export const DrainOnShutdown = Layer.scopedDiscard(
  Effect.gen(function* () {
    const { inFlight, draining } = yield* Drain
    const { shutdownTimeout: timeout } = yield* AppConfig
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        yield* Ref.set(draining, true)
        const waiting = yield* Ref.get(inFlight)
        yield* Effect.logInfo("shutting down").pipe(Effect.annotateLogs({ inFlight: waiting }))
        yield* Ref.get(inFlight).pipe(
          Effect.repeat({ until: (n) => n === 0, schedule: Schedule.spaced("50 millis") }),
          // Finalizers run uninterruptibly; the wait must not, or the deadline could never cut it.
          Effect.interruptible,
          Effect.timeoutOption(timeout)
        )
        yield* Effect.logInfo("drained").pipe(Effect.annotateLogs({ stillRunning: yield* Ref.get(inFlight) }))
      })
    )
  })
)
