/** Every route of the service, and the JSON 404 for the rest. */
import { HttpRouter } from "@effect/platform"
import { Effect } from "effect"
import { errorResponse } from "./errors.ts"
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
  HttpRouter.all("*", Effect.succeed(errorResponse(404, "Not found")))
)
