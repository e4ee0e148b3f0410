import { expect, layer } from "@effect/vitest"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import { escapeHtml } from "../../src/dashboard/html.ts"
import { describeChecks, failedCheck } from "../../src/domain/describeChecks.ts"
import type { OpenApiDocument } from "../../src/http/openapi.ts"
import { Accounts } from "../../src/services/Accounts.ts"
import { ApiKeys } from "../../src/services/ApiKeys.ts"
import { pglite } from "../support/database.ts"
import { customer, jpeg, png, postDescribe } from "../support/describe.ts"
import { problems } from "../support/jsonSchema.ts"
import { schemaRule } from "../../src/domain/schemaFields.ts"
import { getTokens, serverWith, tokensPaths } from "../support/server.ts"
import { describeCases, everyDescribeFailure } from "../support/describeFailures.ts"
import { servicesOn } from "../support/services.ts"
import { call } from "../support/batches.ts"

type Documented = {
  readonly responses: Record<string, { readonly content: Record<string, { readonly schema: object; readonly examples: Record<string, { readonly value: unknown }> }> }>
}

const get = (path: string) => Effect.flatMap(HttpClient.HttpClient, (c) => c.execute(HttpClientRequest.get(path)))

const served = Effect.flatMap(get("/api/openapi.json"), (response) => response.json).pipe(Effect.map((body) => body as OpenApiDocument))

const operationOf = (document: OpenApiDocument, path: keyof OpenApiDocument["paths"]) =>
  Object.values(document.paths[path])[0] as unknown as Documented

/** The problems of a real response against what the served document says of it. */
const conformance = (document: OpenApiDocument, path: keyof OpenApiDocument["paths"], seen: { readonly status: number; readonly body: unknown }) => {
  const response = operationOf(document, path).responses[String(seen.status)]
  if (response === undefined) return [`${path}: status ${seen.status} is not documented`]
  return problems(response.content["application/json"]!.schema, seen.body).map((p) => `${path} ${seen.status} ${p}`)
}

/** Every example body of every response of `path`, with its status. */
const examplesOf = (document: OpenApiDocument, path: keyof OpenApiDocument["paths"]) =>
  Object.entries(operationOf(document, path).responses).flatMap(([status, response]) =>
    Object.values(response.content["application/json"]!.examples).map((example) => ({ status: Number(status), body: example.value }))
  )

layer(serverWith(servicesOn(pglite)), { excludeTestServices: true })("the OpenAPI document", (it) => {
  it.effect("documents the answer of every failure of the table of checks of /api/describe", () =>
    Effect.gen(function* () {
      const document = yield* served
      expect(Object.keys(describeCases).sort()).toEqual(Object.keys(describeChecks).sort())
      const undocumented = everyDescribeFailure.flatMap((error) => {
        const { message, status } = failedCheck(error)
        return conformance(document, "/api/describe", { status, body: { error: message } }).map((problem) => `${error._tag}: ${problem}`)
      })
      expect(undocumented).toEqual([])
    }))

  it.effect("is served at /api/openapi.json and describes both endpoints, and the compatibility route", () =>
    Effect.gen(function* () {
      const response = yield* get("/api/openapi.json")
      expect(response.status).toBe(200)
      const document = (yield* response.json) as OpenApiDocument
      expect(document.openapi).toBe("3.1.0")
      expect(Object.keys(document.paths)).toEqual(["/api/describe", "/api/tokens", "/api/describe/verify", "/api/batches", "/api/batches/{id}"])
      expect(document.paths["/api/describe/verify"].get.responses).toEqual(document.paths["/api/tokens"].get.responses)
    }))

  it.effect("matches the real responses of both endpoints, success and every kind of error", () =>
    Effect.gen(function* () {
      const document = yield* served
      const c = yield* customer(3)
      const broke = yield* customer(0)
      const answers = [
        yield* postDescribe({ image: jpeg }, c.token),
        yield* postDescribe({ image: png, schema: '{"tags":"Tags"}' }, c.token),
        yield* postDescribe({ image: jpeg }),
        yield* postDescribe({ image: jpeg }, "nope"),
        yield* postDescribe({ image: jpeg }, broke.token),
        yield* postDescribe({ keywords: "x" }, c.token),
        yield* postDescribe({ image: jpeg, language: "x".repeat(65) }, c.token),
        yield* postDescribe({ image: jpeg, schema: "{" }, c.token),
        yield* postDescribe({ image: jpeg, schema: '{"__proto__":"x"}' }, c.token),
        yield* postDescribe({ image: "text" }, c.token),
        yield* postDescribe({ image: png.slice(0, png.length - 30) }, c.token)
      ]
      expect(answers.map((a) => a.status)).toEqual([200, 200, 401, 401, 401, 400, 400, 400, 400, 400, 500])
      expect(answers.flatMap((a) => conformance(document, "/api/describe", a))).toEqual([])

      for (const path of tokensPaths) {
        const owner = yield* customer(1)
        const gone = yield* customer(0)
        const { key, token } = yield* Effect.flatMap(ApiKeys, (k) => k.create(owner.accountId, { expiredAt: new Date(Date.now() + 864e5) }))
        const tokens = [yield* getTokens(owner.token, path), yield* getTokens(undefined, path), yield* getTokens("x.y.z", path)]
        yield* Effect.flatMap(ApiKeys, (k) => k.remove(key.id))
        tokens.push(yield* getTokens(token, path))
        yield* Effect.flatMap(Accounts, (a) => a.remove(gone.accountId))
        tokens.push(yield* getTokens(gone.token, path))
        expect(tokens.map((t) => t.status)).toEqual([200, 401, 401, 401, 404])
        expect(tokens.flatMap((t) => conformance(document, path, t))).toEqual([])
      }
    }))

  it.effect("matches the real responses of the batch endpoints, success and every kind of error, and its examples conform", () =>
    Effect.gen(function* () {
      const document = yield* served
      const c = yield* customer(0)
      const seenAt = (method: "get" | "post" | "delete", path: "/api/batches" | "/api/batches/{id}", seen: { readonly status: number; readonly body: unknown }) => {
        const operation = (document.paths[path] as unknown as Record<string, Documented>)[method]!
        const response = operation.responses[String(seen.status)]
        if (response === undefined) return [`${method} ${path}: status ${seen.status} is not documented`]
        return problems(response.content["application/json"]!.schema, seen.body).map((p) => `${method} ${path} ${seen.status} ${p}`)
      }
      const created = yield* call("POST", "/api/batches", { key: c.token, body: JSON.stringify({ items: [{ metadata: { a: 1 } }] }) })
      const id = (created.body as { id: string }).id
      const answers = [
        ["post", "/api/batches", created],
        ["post", "/api/batches", yield* call("POST", "/api/batches", { body: "{}" })],
        ["post", "/api/batches", yield* call("POST", "/api/batches", { key: "nope", body: "{}" })],
        ["post", "/api/batches", yield* call("POST", "/api/batches", { key: c.token, body: "{" })],
        ["post", "/api/batches", yield* call("POST", "/api/batches", { key: c.token, body: `{"items":[{"language":1}]}` })],
        ["post", "/api/batches", yield* call("POST", "/api/batches", { key: c.token, body: JSON.stringify({ items: [{ context: "x".repeat(3 * 1024 * 1024) }] }) })],
        ["get", "/api/batches", yield* call("GET", "/api/batches", { key: c.token })],
        ["get", "/api/batches", yield* call("GET", "/api/batches?limit=x", { key: c.token })],
        ["get", "/api/batches/{id}", yield* call("GET", `/api/batches/${id}`, { key: c.token })],
        ["get", "/api/batches/{id}", yield* call("GET", "/api/batches/nope", { key: c.token })],
        ["delete", "/api/batches/{id}", yield* call("DELETE", `/api/batches/${id}`, { key: c.token })],
        ["delete", "/api/batches/{id}", yield* call("DELETE", `/api/batches/${id}`)]
      ] as const
      expect(answers.map(([, , seen]) => seen.status)).toEqual([202, 401, 401, 400, 400, 413, 200, 400, 200, 404, 200, 401])
      expect(answers.flatMap(([method, path, seen]) => seenAt(method, path, seen))).toEqual([])
      for (const path of ["/api/batches", "/api/batches/{id}"] as const) {
        for (const [method, operation] of Object.entries(document.paths[path] as unknown as Record<string, Documented>)) {
          for (const [status, response] of Object.entries(operation.responses)) {
            for (const example of Object.values(response.content["application/json"]?.examples ?? {})) {
              expect(seenAt(method as "get", path, { status: Number(status), body: example.value })).toEqual([])
            }
          }
        }
      }
    }))

  it.effect("gives example bodies that its own schemas accept, one per failure: every describe check's and every key error's", () =>
    Effect.gen(function* () {
      const document = yield* served
      const examples = (["/api/describe", "/api/tokens"] as const).map((path) => examplesOf(document, path))
      expect(examples.flat().length).toBeGreaterThan(0)
      expect(examples.flatMap((list, i) => list.flatMap((seen) => conformance(document, i === 0 ? "/api/describe" : "/api/tokens", seen)))).toEqual([])
      // The messages of §7.1, §7.2 and ours, each with the status it is answered with.
      const bodies = examples.map((list) => list.filter(({ status }) => status >= 400).map(({ body, status }) => [status, (body as { error: string }).error]))
      expect(new Set(bodies[0]!.map(String))).toEqual(new Set([
        [401, "Unauthorized, missing Authorization header"], [401, "Unauthorized, invalid token"], [401, "Unauthorized, no credit left"],
        [413, "Image too large: the maximum is 10 MB"], [500, "Internal Server Error"], [400, "Bad Request, the body must be multipart/form-data"],
        [400, "Bad Request, No file uploaded"], [400, "Bad Request, language must be at most 64 characters"],
        [400, "Bad Request, Idempotency-Key must be 1 to 255 printable characters"],
        [409, "A request with this Idempotency-Key is in progress"], [422, "Idempotency-Key was used with a different request"],
        ...Object.values(schemaRule).map((reason) => [400, `Invalid schema: ${reason}`]),
        [400, "Bad Request, imageUrl must be a public http or https URL"],
        [400, "Bad Request, the image at imageUrl could not be fetched: the server answered 404"],
        [400, "Bad Request, Invalid image file"], [413, "Image too large: the maximum is 100 megapixels"],
        [413, "Image too large: the maximum is 32 scans per JPEG"], [413, "Image too large: the maximum is 2000 frames per animated WebP"], [500, "Image processing failed: VipsJpeg: Premature end of input file"],
        [400, "Invalid schema: the requested fields need a longer answer than the API can return (about 1,500 words for all fields together), ask for fewer or shorter fields"]
      ].map(String)))
      expect(new Set(bodies[1]!.map(String))).toEqual(new Set([
        [401, "Missing or invalid authentication token"], [401, "Invalid or expired token"], [400, "Malformed token: missing userId"],
        [401, "Unauthorized, invalid token"], [404, "User not found"], [500, "Server error"]
      ].map(String)))
    }))

  it.effect("has a readable reference page showing every example body, with the dashboard's security headers", () =>
    Effect.gen(function* () {
      const document = yield* served
      const response = yield* get("/api/docs")
      expect(response.headers["content-type"]).toContain("text/html")
      const dashboard = yield* get("/dashboard/login")
      for (const header of ["content-security-policy", "x-frame-options", "x-content-type-options", "referrer-policy", "cache-control"]) {
        expect([header, response.headers[header]]).toEqual([header, dashboard.headers[header]])
      }
      const page = yield* response.text
      for (const path of ["/api/describe", "/api/tokens"] as const) {
        for (const { body, status } of examplesOf(document, path)) {
          expect(page, `${path} ${status}`).toContain(escapeHtml(JSON.stringify(body, null, status < 400 ? 2 : undefined)))
        }
      }
      // Requests, ready to paste, at PUBLIC_URL.
      expect(page).toContain(escapeHtml(`curl https://images.example.com/api/describe \\\n  -H "Authorization: Bearer $API_KEY" \\\n  -F image=@photo.jpg`))
      expect(page).toContain(`curl https://images.example.com/api/tokens`)
      // The Markdown of the descriptions, rendered.
      expect(page).toContain("<li>the key (<code>Authorization: Bearer &lt;key&gt;</code>);</li>")
      expect(page).toContain("A code (<code>en</code>, <code>pt-BR</code>) or a name (<code>French</code>)")
      expect(page).not.toContain("`")
    }))
})
