/**
 * The HTTP server on Bun. Bun's body limit is lifted so that the spec's checks answer first: it
 * would otherwise send a 413 before auth and credits are checked (§4.1). Its idle timeout stays
 * short; a describe lifts it while it waits on the model (./connections.ts).
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { AppConfig } from "../config/AppConfig.ts"
import * as DataDirLock from "../db/DataDirLock.ts"
import { randomToken } from "../services/secrets.ts"
import { OperatorToken } from "./routes/admin.ts"
import * as BunServer from "./bunServer.ts"
import { Drain, DrainOnShutdown } from "./drain.ts"
import { closeAfterUnreadBody, idleTimeoutSeconds } from "./connections.ts"
import { requestLog } from "./requestLog.ts"
import { router } from "./router.ts"

/**
 * The requests that get no server span. Dashboard URLs carry one-time tokens (invitations, the Try
 * it form's CSRF token) in their query: no token reaches a trace backend. With the tracer off
 * (tracing.ts) none does: the platform's span middleware would otherwise still parse each URL,
 * copy its headers and ask Bun for the peer's address, 0.2 ms of the request thread for nothing.
 */
export const untracedRequest = (tracing: boolean) => (request: { readonly url: string }): boolean =>
  !tracing || request.url.startsWith("/dashboard")

/** The routes with one log line per request; tests serve exactly this. */
export const serveRoutes = HttpServer.serve(router, (app) => requestLog(closeAfterUnreadBody(app))).pipe(
  // Built after the server: on shutdown it waits for requests in flight before the server stops them.
  (serve) => Layer.provideMerge(DrainOnShutdown, serve),
  Layer.provide(Drain.layer),
  (serve) =>
    Layer.unwrapEffect(Effect.map(FiberRef.get(FiberRef.currentTracerEnabled), (tracing) =>
      HttpMiddleware.withTracerDisabledWhen(serve, untracedRequest(tracing))))
)

/** What the server needs of Bun whatever the address; tests serve with the same. */
export const serveOptions = {
  maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  /** A connection idle this long (no byte either way) is closed. */
  idleTimeout: idleTimeoutSeconds
} as const

/** Where a process on this machine reaches the server: a wildcard address means loopback. */
const localUrl = (hostname: string, port: number) => {
  const host = hostname === "0.0.0.0" || hostname === "" ? "127.0.0.1" : hostname === "::" ? "::1" : hostname
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`
}

/**
 * On the embedded database the admin route opens with a fresh token, published with the local
 * URL in the data folder's lock once the server listens, for the operator CLI.
 */
const OperatorAccess = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => {
    if (Option.isSome(config.databaseUrl)) return Layer.succeed(OperatorToken, Option.none())
    const token = Redacted.make(randomToken())
    const publish = HttpServer.addressWith((address) =>
      address._tag === "TcpAddress"
        ? DataDirLock.publish(config.dataDir, { url: localUrl(address.hostname, address.port), operatorToken: token })
        : Effect.void
    )
    return Layer.merge(Layer.succeed(OperatorToken, Option.some(token)), Layer.effectDiscard(publish))
  })
)

export const ServerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    serveRoutes.pipe(
      HttpServer.withLogAddress,
      Layer.provideMerge(OperatorAccess),
      Layer.provide(BunServer.layer({ port: config.port, hostname: config.host, ...serveOptions }))
    )
  )
)
