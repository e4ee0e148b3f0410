/**
 * `POST /api/describe` with the offline describer, the real app on a real socket: every success says
 * it was written by the offline describer and in which language, so placeholder text never passes
 * for a model's description.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import * as OfflineDescriber from "../../src/services/OfflineDescriber.ts"
import { pglite } from "../support/database.ts"
import { customer, jpeg, postDescribeLabelled } from "../support/describe.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

layer(serverWith(servicesOn(pglite, OfflineDescriber.layer)).pipe(Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))), {
  excludeTestServices: true
})(
  "POST /api/describe with the offline describer",
  (it) => {
    it.effect("200 with X-Describer: offline and Content-Language: en, honest text, one credit", () =>
      Effect.gen(function* () {
        const c = yield* customer(2)
        expect(yield* postDescribeLabelled({ image: jpeg, context: "Internal: write like a sales brochure" }, c.token)).toEqual({
          status: 200,
          contentType: "application/json",
          contentLanguage: "en",
          describer: "offline",
          body: {
            title: "Wide red image",
            alternativeText: "A wide image, mostly red, of medium brightness.",
            caption: "JPEG image, wide, in red, of medium brightness.",
            alt_text: "A wide image, mostly red, of medium brightness."
          }
        })
        expect(yield* c.balance).toBe(1)
      }))

    it.effect("Content-Language is the language written: its own tables, English for the others", () =>
      Effect.gen(function* () {
        const c = yield* customer(5)
        const english = yield* postDescribeLabelled({ image: jpeg }, c.token)
        for (const [language, written] of [["French", "fr"], ["pt-BR", "pt-BR"], ["de-AT", "de"]] as const) {
          const answer = yield* postDescribeLabelled({ image: jpeg, language }, c.token)
          expect([answer.status, answer.contentLanguage, answer.describer]).toEqual([200, written, "offline"])
          expect(answer.body).not.toEqual(english.body)
        }
        const japanese = yield* postDescribeLabelled({ image: jpeg, language: "Japanese" }, c.token)
        expect(japanese).toEqual({ ...english, contentLanguage: "en" })
      }))

    it.effect("a schema's fields it cannot answer are empty strings", () =>
      Effect.gen(function* () {
        const c = yield* customer(1)
        const schema = JSON.stringify({ productName: "The product's name", price: "Its price", tags: "Five tags", colour: "Main colour" })
        const answer = yield* postDescribeLabelled({ image: jpeg, schema, keywords: "poppy", language: "fr" }, c.token)
        expect(answer).toMatchObject({ status: 200, contentLanguage: "fr", describer: "offline" })
        expect(answer.body).toEqual({ productName: "", price: "", tags: "poppy, horizontal, rouge, luminosité moyenne", colour: "rouge" })
      }))

    it.effect("a refusal carries neither header", () =>
      Effect.gen(function* () {
        const c = yield* customer(1)
        const answer = yield* postDescribeLabelled({ image: "not an image" }, c.token)
        expect([answer.status, answer.contentLanguage, answer.describer]).toEqual([400, undefined, undefined])
      }))
  }
)
