/** Fixtures and clients for `POST /api/describe` tests. */
import { HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import { Effect } from "effect"
import sharp from "sharp"
import { Accounts } from "../../src/services/Accounts.ts"
import { ApiKeys } from "../../src/services/ApiKeys.ts"
import { Credits } from "../../src/services/Credits.ts"
import { seen } from "./server.ts"

export const jpeg = new Uint8Array(
  await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 30, b: 30 } } }).jpeg().toBuffer()
)
export const png = new Uint8Array(
  await sharp({ create: { width: 40, height: 40, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } } }).png().toBuffer()
)

export interface DescribeFields {
  readonly image?: Uint8Array | string
  readonly imageUrl?: string
  readonly schema?: string
  readonly keywords?: string
  readonly context?: string
  readonly language?: string
}

export const formData = (form: DescribeFields) => {
  const data = new FormData()
  // The file name and part type are irrelevant (§4.1): send a misleading pair on purpose.
  if (form.image !== undefined) data.append("image", new Blob([form.image], { type: "application/octet-stream" }), "upload.txt")
  for (const name of ["imageUrl", "schema", "keywords", "context", "language"] as const) {
    const value = form[name]
    if (value !== undefined) data.append(name, value)
  }
  return data
}

const sendDescribe = (form: DescribeFields, key?: string) =>
  Effect.flatMap(HttpClient.HttpClient, (client) =>
    client.execute(
      HttpClientRequest.post("/api/describe").pipe(
        HttpClientRequest.bodyFormData(formData(form)),
        key === undefined ? (r) => r : HttpClientRequest.bearerToken(key)
      )
    ))

/** Posts a form through a real HTTP client; what the client sees. */
export const postDescribe = (form: DescribeFields, key?: string) => sendDescribe(form, key).pipe(Effect.flatMap(seen), Effect.orDie)

/** Like `postDescribe`, with the headers that say what wrote the answer, in which language. */
export const postDescribeLabelled = (form: DescribeFields, key?: string) =>
  sendDescribe(form, key).pipe(
    Effect.flatMap((response) =>
      Effect.map(seen(response), (answer) => ({
        ...answer,
        contentLanguage: response.headers["content-language"],
        describer: response.headers["x-describer"]
      }))
    ),
    Effect.orDie
  )

/** An account with `credits` and one key: its id, the key, and how to read its balance and ledger. */
export const customer = (credits: number) =>
  Effect.gen(function* () {
    const account = yield* Effect.flatMap(Accounts, (a) => a.create({ name: "Shop" }))
    if (credits > 0) yield* Effect.flatMap(Credits, (c) => c.grant(account.id, credits, "purchase"))
    const { key, token } = yield* Effect.flatMap(ApiKeys, (k) => k.create(account.id, { expiredAt: new Date(Date.now() + 864e5) }))
    const balance = Effect.flatMap(Accounts, (a) => a.find(account.id)).pipe(Effect.map((a) => a.credits), Effect.orDie)
    const ledger = Effect.flatMap(Credits, (c) => c.ledger(account.id))
    const usage = Effect.flatMap(Credits, (c) => c.usage(account.id))
    return { accountId: account.id, keyId: key.id, token, balance, ledger, usage }
  })

export const serverPort = HttpServer.addressWith((address) =>
  Effect.succeed(address._tag === "TcpAddress" ? address.port : 0)
)

export const error = (status: number, message: string) => ({ status, contentType: "application/json", body: { error: message } })
