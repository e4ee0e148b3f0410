/**
 * Every route of the service. A known path asked with another method answers a JSON 405 with
 * `Allow`; any other path a JSON 404. HEAD is answered by a path's GET route (the router falls
 * back to it), without the body.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { AppConfig } from "../config/AppConfig.ts"
import { asset, favicon } from "../dashboard/assets.ts"
import { securityHeaders } from "../dashboard/http.ts"
import { apiReferencePage } from "./apiReference.ts"
import { errorResponse } from "./errors.ts"
import { loadedOnFirstRequest } from "./loadedOnFirstRequest.ts"
import { openApiDocument } from "./openapi.ts"
import { admin } from "./routes/admin.ts"
import { cancelBatch, createBatch, getBatch, listBatches } from "./routes/batches.ts"
import { describe } from "./routes/describe.ts"
import { healthz, readyz } from "./routes/health.ts"
import { metrics } from "./routes/metrics.ts"
import { tokens } from "./routes/tokens.ts"

/**
 * The dashboard's pages and routes, loaded on its first request: a service used through the API
 * alone never holds them (4 to 5 MiB resident, docs/BENCHMARKS.md).
 */
const dashboard = loadedOnFirstRequest({
  what: "The dashboard",
  load: () => import("../dashboard/router.ts").then((module) => HttpRouter.prefixAll(module.dashboard, "/dashboard")),
  unavailable: securityHeaders(HttpServerResponse.text("Internal Server Error", { status: 500 }))
})

/** The document names `PUBLIC_URL` as its server when set; else the host that serves it. */
const servedDocument = Effect.map(AppConfig, (config) => openApiDocument(config.publicUrlSet ? config.publicUrl : "/"))

const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/", Effect.succeed(HttpServerResponse.redirect("/dashboard"))),
  HttpRouter.get("/api/tokens", tokens),
  HttpRouter.post("/api/describe", describe),
  // A compatibility route (README): the ForVoyez WordPress plugin checks its key here.
  HttpRouter.get("/api/describe/verify", tokens),
  HttpRouter.post("/api/batches", createBatch),
  HttpRouter.get("/api/batches", listBatches),
  HttpRouter.get("/api/batches/:id", getBatch),
  HttpRouter.del("/api/batches/:id", cancelBatch),
  HttpRouter.post("/admin/commands", admin),
  HttpRouter.get("/healthz", healthz),
  HttpRouter.get("/readyz", readyz),
  HttpRouter.get("/metrics", metrics),
  HttpRouter.get("/api/openapi.json", Effect.map(servedDocument, (document) => HttpServerResponse.unsafeJson(document))),
  HttpRouter.get("/api/docs", Effect.map(servedDocument, (document) => securityHeaders(HttpServerResponse.html(apiReferencePage(document))))),
  // Browsers ask for `/favicon.ico` on any page without an icon link (e.g. the API reference).
  HttpRouter.get("/favicon.svg", asset(favicon, "image/svg+xml")),
  HttpRouter.get("/favicon.ico", asset(favicon, "image/svg+xml")),
  HttpRouter.mountApp("/dashboard", dashboard, { includePrefix: true })
)

/**
 * A request's path as the router matches it (find-my-way's defaults): without its query, one slash
 * for many, decoded, without a trailing slash, in any case. `//healthz` is `/healthz`, not a URL
 * whose host is `healthz`.
 */
const routedPath = (url: string): string => {
  const path = (url.split(/[?#]/, 1)[0] ?? "").replace(/\/{2,}/g, "/")
  const decoded = Either.getOrElse(Either.try(() => decodeURI(path)), () => path)
  return (decoded.length > 1 && decoded.endsWith("/") ? decoded.slice(0, -1) : decoded).toLowerCase()
}

/** The methods each path answers, from the routes themselves: `GET, HEAD` for a GET route. */
const allowed = Chunk.reduce(routes.routes, new Map<string, string>(), (allow, route) => {
  const methods = route.method === "GET" ? "GET, HEAD" : route.method
  const path = routedPath(route.path)
  const before = allow.get(path)
  return allow.set(path, before === undefined ? methods : `${before}, ${methods}`)
})

/** Whether a request's routed path is a route's, where a `:name` segment stands for any one segment. */
const isPathOf = (route: string, path: string): boolean => {
  const routeSegments = route.split("/")
  const pathSegments = path.split("/")
  return routeSegments.length === pathSegments.length &&
    routeSegments.every((segment, at) => segment.startsWith(":") || segment === pathSegments[at])
}

/**
 * A 405 with `Allow` for a known path asked with another method; a 404 otherwise, also for a path
 * whose route takes this method but which the router refused itself (an id it cannot decode, such
 * as `%ff`, or one past its length limit).
 */
const notRouted = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const path = routedPath(request.url)
  const allow = allowed.get(path) ?? [...allowed].find(([route]) => isPathOf(route, path))?.[1]
  return allow === undefined || allow.split(", ").includes(request.method)
    ? errorResponse(404, "Not found")
    : errorResponse(405, "Method not allowed", { allow })
})

export const router = Effect.catchTag(routes, "RouteNotFound", () => notRouted)
