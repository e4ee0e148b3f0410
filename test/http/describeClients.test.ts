import { expect, layer } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { type HttpClientStyle, phpClient, phpEolClient } from "../support/clientForms.ts"
import { pglite } from "../support/database.ts"
import { customer, jpeg, serverPort } from "../support/describe.ts"
import { requestHead, sendRaw } from "../support/rawHttp.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

/** What the ForVoyez WordPress plugin sends: the image, and a `data` field of its own (a JSON object). */
const pluginDescribe = (
  token: string,
  boundary: string,
  fields: ReadonlyArray<{ readonly name: string; readonly data: string }> = [],
  client: HttpClientStyle = phpClient
) =>
  Effect.gen(function* () {
    const body = client.body(boundary, [
      { name: "image", filename: "photo.jpg", contentType: "image/jpeg", data: jpeg },
      { name: "data", data: JSON.stringify({ lang: "fr", schema: { title: "A title" }, post_id: 42 }) },
      ...fields
    ])
    const answer = yield* sendRaw({
      port: yield* serverPort,
      head: requestHead("POST", "/api/describe", {
        authorization: `Bearer ${token}`,
        "content-type": client.contentType(boundary),
        "content-length": String(body.length)
      }),
      body: [body]
    })
    return { status: answer.status, body: JSON.parse(answer.body) as unknown }
  })

layer(serverWith(servicesOn(pglite)), { excludeTestServices: true })("POST /api/describe from a PHP client (the WordPress plugin)", (it) => {
  it.effect("200 for its boundaries, `!@#$%^&*()` included, unquoted; its `data` field is ignored", () =>
    Effect.gen(function* () {
      const boundaries = [
        `${"-".repeat(13)}!@#$%^&*()aZ09!@#$%^&*()`,
        `${"-".repeat(13)}(a)b@c#d$e%f^g&h*i!j0K9(`,
        ...fc.sample(phpClient.boundary, { seed: 7, numRuns: 5 })
      ]
      const c = yield* customer(boundaries.length)
      for (const boundary of boundaries) {
        expect([boundary, yield* pluginDescribe(c.token, boundary)]).toEqual([boundary, {
          status: 200,
          body: { title: "title value", alternativeText: "alternativeText value", caption: "caption value", alt_text: "alternativeText value" }
        }])
      }
      expect(yield* c.balance).toBe(0)
    }))

  it.effect("the fields of §4.1 it adds are read as from any client", () =>
    Effect.gen(function* () {
      const c = yield* customer(1)
      const answer = yield* pluginDescribe(c.token, `${"-".repeat(13)}Zz9)(*&^%$#@!aA0)(*&^%$#`, [
        { name: "schema", data: '{"seoTitle":"A title for search engines"}' }
      ])
      expect(answer).toEqual({ status: 200, body: { seoTitle: "seoTitle value" } })
    }))

  it.effect("a body written with PHP_EOL, every line ending in a bare LF, is read as with CRLF: 200, one credit", () =>
    Effect.gen(function* () {
      const c = yield* customer(2)
      const answer = yield* pluginDescribe(c.token, `${"-".repeat(13)}aZ09!@#$%^&*()bY18)(*&^%`, [
        { name: "schema", data: '{"seoTitle":"A title for search engines"}' },
        { name: "language", data: "fr" }
      ], phpEolClient)
      expect(answer).toEqual({ status: 200, body: { seoTitle: "seoTitle value" } })
      expect(yield* c.balance).toBe(1)
    }))
})
