import { BunRuntime } from "@effect/platform-bun"
import { Effect, Layer } from "effect"
import { AppLive } from "./app.ts"
import { LoggingLive } from "./logging.ts"
import { TracingLive } from "./tracing.ts"

Layer.launch(AppLive).pipe(
  Effect.provide(TracingLive),
  Effect.provide(LoggingLive),
  BunRuntime.runMain({ disablePrettyLogger: true })
)
