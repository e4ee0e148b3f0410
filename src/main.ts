import * as BunRuntime from "@effect/platform-bun/BunRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppLive } from "./app.ts"
import * as Settings from "./config/Settings.ts"
import { LoggingLive } from "./logging.ts"
import { timeSliced } from "./scheduler.ts"
import { TracingLive } from "./tracing.ts"

Layer.launch(AppLive).pipe(
  Effect.provide(TracingLive),
  // Read once, for everything above: the tracer too.
  Effect.provide(Settings.layer),
  // A refused start is logged here, with a message and in the configured format; runMain's own
  // report would use its default logger, without either. A stop by signal is no failure.
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError("the service could not start", cause)
  ),
  Effect.provide(LoggingLive),
  // Every fiber of the service, requests' included: after 10 ms of work the sockets are read.
  Effect.withScheduler(timeSliced(10)),
  BunRuntime.runMain({ disablePrettyLogger: true, disableErrorReporting: true })
)
