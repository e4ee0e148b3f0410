import * as BunRuntime from "@effect/platform-bun/BunRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AppLive } from "./app.ts"
import * as Settings from "./config/Settings.ts"
import { LoggingLive } from "./logging.ts"
import { explained } from "./services/messageOf.ts"
import { timeSliced } from "./scheduler.ts"
import { TracingLive } from "./tracing.ts"

Layer.launch(AppLive).pipe(
  Effect.provide(TracingLive),
  // Read once, for everything above: the tracer too.
  Effect.provide(Settings.layer),
  // A refused start is logged here, with a message and in the configured format; runMain's own
  // report would use its default logger, without either. A refusal the service names (a setting,
  // the data folder, the database, the port) is its reason alone; anything else, its whole cause.
  // A stop by signal is no failure. Fatal: shown at every LOG_LEVEL but None (at Fatal it was silent).
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause)
      ? Effect.void
      : Option.match(Cause.failureOption(cause), {
        onNone: () => Effect.logFatal("the service could not start", cause),
        onSome: (error) => Effect.logFatal("the service could not start").pipe(Effect.annotateLogs({ reason: explained(error) }))
      })
  ),
  Effect.provide(LoggingLive),
  // Every fiber of the service, requests' included: after 10 ms of work the sockets are read.
  Effect.withScheduler(timeSliced(10)),
  BunRuntime.runMain({ disablePrettyLogger: true, disableErrorReporting: true })
)
