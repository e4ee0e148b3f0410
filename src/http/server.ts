/**
 * The HTTP server on Bun. Bun's own limits are lifted so that the spec's checks answer first:
 * its body limit would otherwise send a 413 before auth and credits are checked (§4.1), and its
 * 10 s idle timeout would cut off clients waiting for a slow model.
 */
import { HttpServer } from "@effect/platform"
import { BunHttpServer } from "@effect/platform-bun"
import { Effect, Layer } from "effect"
import { AppConfig } from "../config.ts"
import { router } from "./router.ts"

/** Bun's maximum; a connection idle this long (no byte either way) is closed. */
const idleTimeoutSeconds = 255

export const ServerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    HttpServer.serve(router).pipe(
      HttpServer.withLogAddress,
      Layer.provide(BunHttpServer.layer({
        port: config.port,
        hostname: config.host,
        maxRequestBodySize: Number.MAX_SAFE_INTEGER,
        idleTimeout: idleTimeoutSeconds
      }))
    )
  )
)
