import { expect, layer } from "@effect/vitest"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import { describeChecks, type DescribeErrorOf, type DescribeErrorTag, failedCheck } from "../../src/domain/describeChecks.ts"
import {
  AnswerTooLong,
  ApiKeyMissing,
  GenerationFailed,
  ImageProcessingFailed,
  ImageTooLarge,
  ImageTooManyPixels,
  ImageTooManyScans,
  InvalidImageFile,
  InvalidSchema,
  KeyRejected,
  LanguageTooLong,
  NoCreditLeft,
  NoFileUploaded,
  NotMultipart,
  RequestTooLarge,
  UploadBudgetTimedOut,
  UploadTimedOut
} from "../../src/domain/errors.ts"
import { openApiDocument } from "../../src/http/openapi.ts"
import { Accounts } from "../../src/services/Accounts.ts"
import { ApiKeys } from "../../src/services/ApiKeys.ts"
import { pglite } from "../support/database.ts"
import { customer, jpeg, png, postDescribe } from "../support/describe.ts"
import { problems } from "../support/jsonSchema.ts"
import { getTokens, serverWith, tokensPaths } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

type Documented = { readonly responses: Record<string, { readonly content: Record<string, { readonly schema: object }> }> }

/** The problems of a real response against what the document says of it. */
const conformance = (path: keyof typeof openApiDocument.paths, seen: { readonly status: number; readonly body: unknown }) => {
  const operation = Object.values(openApiDocument.paths[path])[0] as unknown as Documented
  const response = operation.responses[String(seen.status)]
  if (response === undefined) return [`${path}: status ${seen.status} is not documented`]
  return problems(response.content["application/json"]!.schema, seen.body).map((p) => `${path} ${seen.status} ${p}`)
}

/** One failure of each kind of the table of checks (a kind left out does not compile). */
const oneOfEach: { readonly [T in DescribeErrorTag]: DescribeErrorOf<T> } = {
  ApiKeyMissing: new ApiKeyMissing(),
  KeyRejected: new KeyRejected(),
  NoCreditLeft: new NoCreditLeft(),
  RequestTooLarge: new RequestTooLarge({ announced: true }),
  UploadBudgetTimedOut: new UploadBudgetTimedOut(),
  UploadTimedOut: new UploadTimedOut(),
  NotMultipart: new NotMultipart(),
  NoFileUploaded: new NoFileUploaded(),
  LanguageTooLong: new LanguageTooLong(),
  InvalidSchema: new InvalidSchema({ reason: "field names must be at most 64 characters" }),
  ImageTooLarge: new ImageTooLarge(),
  InvalidImageFile: new InvalidImageFile(),
  ImageTooManyPixels: new ImageTooManyPixels({ maxMegapixels: 100 }),
  ImageTooManyScans: new ImageTooManyScans({ maxScans: 32 }),
  ImageProcessingFailed: new ImageProcessingFailed({ cause: "the GIF file is truncated or corrupt" }),
  AnswerTooLong: new AnswerTooLong(),
  GenerationFailed: new GenerationFailed({ reason: "timeout" })
}

layer(serverWith(servicesOn(pglite)), { excludeTestServices: true })("the OpenAPI document", (it) => {
  it("documents the answer of every failure of the table of checks of /api/describe", () => {
    expect(Object.keys(oneOfEach).sort()).toEqual(Object.keys(describeChecks).sort())
    const undocumented = Object.values(oneOfEach).flatMap((error) => {
      const { message, status } = failedCheck(error)
      return conformance("/api/describe", { status, body: { error: message } }).map((problem) => `${error._tag}: ${problem}`)
    })
    expect(undocumented).toEqual([])
  })

  it.effect("is served at /api/openapi.json and describes both endpoints, and the compatibility route", () =>
    Effect.gen(function* () {
      const response = yield* Effect.flatMap(HttpClient.HttpClient, (c) => c.execute(HttpClientRequest.get("/api/openapi.json")))
      expect(response.status).toBe(200)
      const document = (yield* response.json) as typeof openApiDocument
      expect(document.openapi).toBe("3.1.0")
      expect(Object.keys(document.paths)).toEqual(["/api/describe", "/api/tokens", "/api/describe/verify"])
      expect(document.paths["/api/describe/verify"].get.responses).toEqual(document.paths["/api/tokens"].get.responses)
    }))

  it.effect("matches the real responses of both endpoints, success and every kind of error", () =>
    Effect.gen(function* () {
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
      expect(answers.flatMap((a) => conformance("/api/describe", a))).toEqual([])

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
        expect(tokens.flatMap((t) => conformance(path, t))).toEqual([])
      }
    }))

  it.effect("has a readable reference page listing every error message of the spec", () =>
    Effect.gen(function* () {
      const response = yield* Effect.flatMap(HttpClient.HttpClient, (c) => c.execute(HttpClientRequest.get("/api/docs")))
      expect(response.headers["content-type"]).toContain("text/html")
      const page = yield* response.text
      for (const message of [
        "Bad Request, the body must be multipart/form-data", "Bad Request, No file uploaded", "Bad Request, Invalid image file",
        "Invalid schema: at most 20 fields are allowed", "Invalid schema: field names must be at most 64 characters",
        "Invalid schema: field descriptions must be at most 1000 characters", "Invalid schema: &quot;__proto__&quot; is not allowed as a field name",
        "Unauthorized, missing Authorization header", "Unauthorized, invalid token", "Unauthorized, no credit left",
        "Image too large: the maximum is 10 MB", "Internal Server Error", "Malformed token: missing userId",
        "Missing or invalid authentication token", "Invalid or expired token", "User not found"
      ]) {
        expect(page, message).toContain(message)
      }
    }))
})
