/**
 * A process-wide bound on describe uploads being read and processed at once (each may hold up to
 * 10 MB): beyond it, requests wait their turn without reading their bodies, so TCP backpressure,
 * not memory, absorbs a burst. `MAX_CONCURRENT_UPLOADS`, default 32.
 */
import { Context, Effect, Layer } from "effect"
import { AppConfig } from "../config.ts"

export class UploadSlots extends Context.Tag("UploadSlots")<UploadSlots, Effect.Semaphore>() {
  static readonly layer = Layer.effect(
    UploadSlots,
    Effect.flatMap(AppConfig, (config) => Effect.makeSemaphore(config.maxConcurrentUploads))
  )
}
