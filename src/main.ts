import * as BunRuntime from "@effect/platform-bun/BunRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppLive } from "./app.ts"
import * as Settings from "./config/Settings.ts"
import { LoggingLive } from "./logging.ts"
import { TracingLive } from "./tracing.ts"

Layer.launch(AppLive).pipe(
  Effect.provide(TracingLive),
  Effect.provide(LoggingLive),
  // Read once, for everything above: the logger and the tracer too.
  Effect.provide(Settings.layer),
  BunRuntime.runMain({ disablePrettyLogger: true })
)
