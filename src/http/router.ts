/** Every route of the service, and the JSON 404 for the rest. */
import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { dashboard } from "../dashboard/router.ts"
import { apiReferencePage } from "./apiReference.ts"
import { errorResponse } from "./errors.ts"
import { openApiDocument } from "./openapi.ts"
import { admin } from "./routes/admin.ts"
import { describe } from "./routes/describe.ts"
import { healthz, readyz } from "./routes/health.ts"
import { metrics } from "./routes/metrics.ts"
import { tokens } from "./routes/tokens.ts"

export const router = HttpRouter.empty.pipe(
  HttpRouter.get("/api/tokens", tokens),
  HttpRouter.post("/api/describe", describe),
  HttpRouter.post("/admin/commands", admin),
  HttpRouter.get("/healthz", healthz),
  HttpRouter.get("/readyz", readyz),
  HttpRouter.get("/metrics", metrics),
  HttpRouter.get("/api/openapi.json", Effect.succeed(HttpServerResponse.unsafeJson(openApiDocument))),
  HttpRouter.get("/api/docs", Effect.sync(() => HttpServerResponse.html(apiReferencePage()))),
  HttpRouter.mount("/dashboard", dashboard),
  HttpRouter.all("*", Effect.succeed(errorResponse(404, "Not found")))
)
