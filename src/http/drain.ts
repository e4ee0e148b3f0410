/**
 * Graceful shutdown (README, Operations: Shutdown). On SIGTERM the runtime closes the application's scope; before
 * the server withdraws the routes and interrupts what is still running, this waits (up to
 * `SHUTDOWN_TIMEOUT_MS`) for every request the server has taken to be answered, those still
 * waiting in line included. Meanwhile `/readyz` answers 503 so a load balancer stops sending.
 * Requests still running at the deadline are interrupted, which releases their credits.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../config/AppConfig.ts"
import { Unanswered } from "./bunServer.ts"

/** Whether the service is shutting down, for `/readyz`. */
export class Drain extends Context.Tag("Drain")<Drain, { readonly draining: Ref.Ref<boolean> }>() {
  static readonly layer = Layer.effect(Drain, Effect.map(Ref.make(false), (draining) => ({ draining })))
}

/** Build it after the server, so that on close it runs before the server stops its requests. */
export const DrainOnShutdown = Layer.scopedDiscard(
  Effect.gen(function* () {
    const { draining } = yield* Drain
    const unanswered = yield* Unanswered
    const { shutdownTimeout: timeout } = yield* AppConfig
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        yield* Ref.set(draining, true)
        yield* Effect.logInfo("shutting down").pipe(Effect.annotateLogs({ inFlight: yield* unanswered }))
        yield* unanswered.pipe(
          Effect.repeat({ until: (n) => n === 0, schedule: Schedule.spaced("50 millis") }),
          // Finalizers run uninterruptibly; the wait must not, or the deadline could never cut it.
          Effect.interruptible,
          Effect.timeoutOption(timeout)
        )
        yield* Effect.logInfo("drained").pipe(Effect.annotateLogs({ stillRunning: yield* unanswered }))
      })
    )
  })
)
