/**
 * The served OpenAPI document passes Redocly's `recommended` rules: no error, no warning but
 * those listed here with why. Its server is `PUBLIC_URL` when set, else the host serving it (`/`).
 */
import { expect, layer } from "@effect/vitest"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import type { OpenApiDocument } from "../../src/http/openapi.ts"
import { pgliteWith } from "../support/database.ts"
import { redoclyProblems } from "../support/redocly.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

/**
 * The project has no licence of its own to name (no LICENSE file, none in package.json); naming
 * one in the document would be a claim nobody made.
 */
const allowed = ["warn info-license #/info: Info object should contain `license` field."]

const served = Effect.flatMap(HttpClient.HttpClient, (c) => c.execute(HttpClientRequest.get("/api/openapi.json"))).pipe(
  Effect.flatMap((response) => response.json),
  Effect.map((body) => body as OpenApiDocument)
)

// Not example.com (the test default): Redocly rightly warns of a server there.
const publicUrl = "https://images.acme.test"

layer(serverWith(servicesOn(pgliteWith({ PUBLIC_URL: publicUrl }))), { excludeTestServices: true })("the OpenAPI document with PUBLIC_URL", (it) => {
  it.effect("passes Redocly's recommended rules, and names PUBLIC_URL as its server", () =>
    Effect.gen(function* () {
      const document = yield* served
      expect(document.servers.map((s) => s.url)).toEqual([publicUrl])
      expect(yield* redoclyProblems(document)).toEqual(allowed)
    }))
})

layer(serverWith(servicesOn(pgliteWith({ PUBLIC_URL: undefined }))), { excludeTestServices: true })("the OpenAPI document without PUBLIC_URL", (it) => {
  it.effect("passes Redocly's recommended rules, with the serving host as its server", () =>
    Effect.gen(function* () {
      const document = yield* served
      expect(document.servers.map((s) => s.url)).toEqual(["/"])
      expect(yield* redoclyProblems(document)).toEqual(allowed)
    }))
})
