import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
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
      // Spelled as the router still matches them: doubled slashes, a trailing slash, other case.
      for (const [method, path, allow] of [["GET", "//api/describe", "POST"], ["PUT", "/API/Describe/", "POST"], ["POST", "//healthz", "GET, HEAD"],
        // A path with an id: the batch's (a batch that does not exist, as the method is checked first).
        ["PUT", "/api/batches/0b4f6f3e-6c57-4a0e-9a39-8f2d2a3c1e55", "GET, HEAD, DELETE"], ["POST", "/api/batches/x/", "GET, HEAD, DELETE"]] as const) {
        expect([method, path, yield* send(method, path)])
          .toEqual([method, path, { status: 405, allow, body: JSON.stringify({ error: "Method not allowed" }) }])
      }
    }))

  it.effect("a path whose route takes the method but whose id the router refuses (undecodable, too long): 404, not 405", () =>
    Effect.gen(function* () {
      const c = yield* customer(1)
      for (const path of ["/api/batches/%ff", `/api/batches/${"x".repeat(5000)}`]) {
        expect([path.slice(0, 20), yield* send("GET", path, { authorization: `Bearer ${c.token}` })])
          .toEqual([path.slice(0, 20), { status: 404, allow: undefined, body: JSON.stringify({ error: "Not found" }) }])
      }
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
        for (const path of ["/nope", "/api", "/api/describe/other", "/api/tokens/x", "//nope", "//healthz/x", "/%E0%A4%A", "/api/batches/x/y"]) {
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

describe("the dashboard, loaded on its first request", () => {
  it("starting the service loads none of its pages and routes, only the helpers the API's pages share", async () => {
    // A fresh process: this one has loaded the dashboard already (the tests above serve it).
    const child = Bun.spawn({
      cmd: [process.execPath, "-e", `await import(${JSON.stringify(path.join(import.meta.dirname, "../../src/app.ts"))});
        console.log(JSON.stringify(Object.keys(require.cache).filter((file) => file.includes("/src/dashboard/"))))`],
      stdout: "pipe",
      stderr: "inherit"
    })
    const loaded: ReadonlyArray<string> = JSON.parse(await new Response(child.stdout).text())
    expect(await child.exited).toBe(0)
    expect(loaded.map((file) => file.split("/src/dashboard/")[1]).sort()).toEqual(["assets.ts", "html.ts", "http.ts"])
  })
})

layer(serverWith(servicesOn(pglite)), { excludeTestServices: true })("the dashboard after a start", (it) => {
  it.effect("its first request is served in full: the page, its status, its security headers", () =>
    Effect.gen(function* () {
      const port = yield* serverPort
      const login = yield* sendRaw({ port, head: requestHead("GET", "/dashboard/login") })
      expect([login.status, login.headers["content-security-policy"] !== undefined, login.body.includes("<form")]).toEqual([200, true, true])
      // The mount's own path, with and without a query, is the overview's (a log-in first).
      for (const target of ["/dashboard", "/dashboard?welcome=1", "/dashboard/"]) {
        const overview = yield* sendRaw({ port, head: requestHead("GET", target) })
        expect([target, overview.status, overview.headers["location"]]).toEqual([target, 303, "/dashboard/login"])
      }
      const missing = yield* sendRaw({ port, head: requestHead("GET", "/dashboard/nope") })
      expect(missing.status).toBe(404)
      expect(missing.headers["content-type"]).toContain("text/html")
    }))

  it.effect("HEAD on a dashboard page answers as GET does, without the body", () =>
    Effect.gen(function* () {
      const port = yield* serverPort
      for (const [target, status] of [["/dashboard/login", 200], ["/dashboard/assets/style.css", 200], ["/dashboard/nope", 404]] as const) {
        const get = yield* sendRaw({ port, head: requestHead("GET", target) })
        const head = yield* sendRaw({ port, head: requestHead("HEAD", target) })
        const shown = (answer: typeof get) =>
          [answer.status, answer.headers["content-type"], answer.headers["content-security-policy"] !== undefined]
        expect([target, ...shown(head), head.body]).toEqual([target, ...shown(get), ""])
        expect([target, get.status, get.body.length > 0]).toEqual([target, status, true])
      }
    }))
})
