import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { pglite } from "../support/database.ts"
import { customer, serverPort } from "../support/describe.ts"
import { requestHead, sendRaw } from "../support/rawHttp.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

/** Every path the service answers outside the dashboard, and its methods. */
const knownPaths: ReadonlyArray<readonly [path: string, allow: string]> = [
  ["/", "GET, HEAD"],
  ["/api/tokens", "GET, HEAD"],
  ["/api/describe", "POST"],
  ["/api/describe/verify", "GET, HEAD"],
  ["/api/openapi.json", "GET, HEAD"],
  ["/api/docs", "GET, HEAD"],
  ["/admin/commands", "POST"],
  ["/healthz", "GET, HEAD"],
  ["/readyz", "GET, HEAD"],
  ["/metrics", "GET, HEAD"]
]

const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

const send = (method: string, path: string, headers: Readonly<Record<string, string>> = {}) =>
  Effect.flatMap(serverPort, (port) =>
    sendRaw({ port, head: requestHead(method, path, { "content-length": "0", ...headers }) })
  ).pipe(Effect.map(({ status, headers, body }) => ({ status, allow: headers["allow"], body })))

layer(serverWith(servicesOn(pglite)), { excludeTestServices: true })("methods and paths", (it) => {
  it.effect("a known path asked with another method: 405, its methods in Allow, a JSON error (none for HEAD)", () =>
    Effect.gen(function* () {
      for (const [path, allow] of knownPaths) {
        for (const method of methods.filter((m) => !allow.split(", ").includes(m))) {
          const answer = yield* send(method, path)
          const body = method === "HEAD" ? "" : JSON.stringify({ error: "Method not allowed" })
          expect([method, path, answer]).toEqual([method, path, { status: 405, allow, body }])
        }
      }
      expect((yield* send("GET", "/api/describe?fields=1")).status).toBe(405)
    }))

  it.effect("HEAD answers as GET does, without the body; no credit is used", () =>
    Effect.gen(function* () {
      const c = yield* customer(2)
      for (const path of ["/healthz", "/api/openapi.json", "/api/docs"]) {
        expect([path, yield* send("HEAD", path)]).toEqual([path, { status: 200, allow: undefined, body: "" }])
      }
      for (const path of ["/api/tokens", "/api/describe/verify"]) {
        expect((yield* send("HEAD", path, { authorization: `Bearer ${c.token}` })).status).toBe(200)
        expect((yield* send("HEAD", path)).status).toBe(401)
      }
      expect(yield* c.balance).toBe(2)
    }))

  it.effect("an unknown path: 404 with a JSON error, whatever the method", () =>
    Effect.gen(function* () {
      for (const method of ["GET", "POST", "DELETE"]) {
        for (const path of ["/nope", "/api", "/api/describe/other", "/api/tokens/x"]) {
          expect([method, path, yield* send(method, path)])
            .toEqual([method, path, { status: 404, allow: undefined, body: JSON.stringify({ error: "Not found" }) }])
        }
      }
    }))

  it.effect("GET / and HEAD / redirect to the dashboard", () =>
    Effect.gen(function* () {
      const port = yield* serverPort
      for (const method of ["GET", "HEAD"]) {
        const answer = yield* sendRaw({ port, head: requestHead(method, "/") })
        expect([method, answer.status, answer.headers["location"]]).toEqual([method, 302, "/dashboard"])
      }
    }))
})
