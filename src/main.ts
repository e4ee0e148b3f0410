import { BunRuntime } from "@effect/platform-bun"
import { Layer } from "effect"
import { AppLive } from "./app.ts"

BunRuntime.runMain(Layer.launch(AppLive))
