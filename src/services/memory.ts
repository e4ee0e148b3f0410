/** Memory handed back when its owner is done with it, not whenever the collector comes by. */
import * as Effect from "effect/Effect"

/**
 * Detaches a buffer's memory now: under a burst of uploads the collector came too late
 * (docs/BENCHMARKS.md, figure 2). Only a buffer that is this array's alone: a view into a shared
 * one is left alone.
 */
export const releaseNow = (bytes: Uint8Array) =>
  Effect.try(() => {
    const { buffer } = bytes
    if (buffer instanceof ArrayBuffer && buffer.byteLength === bytes.byteLength) buffer.transfer(0)
  }).pipe(Effect.catchAll(() => Effect.logWarning("a buffer could not be released; the collector will take it")))

