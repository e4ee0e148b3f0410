import { describe, expect, layer } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { type DescribeRequest, defaultFields, type PreparedImage, type SchemaFields } from "../../src/domain/describe.ts"
import { limits } from "../../src/domain/limits.ts"
import { offlineLanguages } from "../../src/domain/offlineLanguage.ts"
import { Describer } from "../../src/services/Describer.ts"
import * as OfflineDescriber from "../../src/services/OfflineDescriber.ts"
import { describeWhole } from "../support/describer.ts"
import { black, clear, halves, navy, red, solid, white } from "../domain/preparedImages.ts"

const request = (image: PreparedImage, options: Partial<Omit<DescribeRequest, "image">> = {}): DescribeRequest => ({
  image,
  fields: defaultFields,
  keywords: "",
  context: "",
  language: "en",
  ...options
})

const describeImage = (image: PreparedImage, options: Partial<Omit<DescribeRequest, "image">> = {}) =>
  Effect.flatMap(Describer, (describer) => describeWhole(describer, request(image, options)))

const redImage = solid(200, 100, red)

/** Object keys list integer-like names first whatever the insertion order (a JavaScript rule). */
const isArrayIndex = (name: string): boolean => /^(0|[1-9]\d*)$/.test(name) && Number(name) < 2 ** 32 - 1

layer(OfflineDescriber.layer)("OfflineDescriber", (it) => {
  it.effect("is named offline, of the offline kind", () =>
    Effect.map(Describer, (describer) => expect([describer.name, describer.kind]).toStrictEqual(["offline", "offline"])))

  it.effect("writes from what its start took of the pixels: released after the start, the same answer", () =>
    Effect.gen(function* () {
      const describer = yield* Describer
      const image = halves(40, 20, navy, clear)
      const expected = yield* describeWhole(describer, request(image))
      const own = { ...image, pixels: new Uint8Array(image.pixels) }
      const generation = yield* describer.start(request(own))
      own.pixels.buffer.transfer(0)
      expect(yield* generation).toStrictEqual(expected)
    }))

  it.effect("describes a 200x100 red image from its facts, fields in order", () =>
    Effect.gen(function* () {
      const result = yield* describeImage(redImage)
      expect(Object.keys(result)).toStrictEqual(["title", "alternativeText", "caption"])
      expect(result).toStrictEqual({
        title: "Wide red image",
        alternativeText: "A wide image, mostly red, of medium brightness.",
        caption: "PNG image, wide, in red, of medium brightness."
      })
    }))

  it.effect("names both colours of a half black, half white image", () =>
    Effect.gen(function* () {
      const result = yield* describeImage(halves(100, 200, black, white))
      expect(result["alternativeText"]).toBe("A tall image, mostly black and white, of medium brightness.")
    }))

  it.effect("says when an image is fully or partly transparent", () =>
    Effect.gen(function* () {
      const invisible = yield* describeImage(solid(64, 64, clear, { hasAlpha: true }))
      expect(invisible["title"]).toBe("Fully transparent square image")
      expect(invisible["alternativeText"]).toBe("A square image, fully transparent.")
      const half = yield* describeImage(halves(200, 100, clear, navy))
      expect(half["alternativeText"]).toBe("A wide image, mostly dark blue, dark, partly transparent.")
    }))

  it.effect("mentions animation only for more than one frame", () =>
    Effect.gen(function* () {
      const still = yield* describeImage(solid(200, 100, red, { format: "gif", frames: 1 }))
      const animated = yield* describeImage(solid(200, 100, red, { format: "gif", frames: 12 }))
      expect(still["alternativeText"]).not.toMatch(/animated|frames/)
      expect(animated["title"]).toBe("Animated wide red image")
      expect(animated["alternativeText"]).toBe("An animated wide image, mostly red, of medium brightness.")
      expect(animated["caption"]).toBe("GIF animation of 12 frames, wide, in red, of medium brightness.")
    }))

  it.effect("gives the uploaded size, not the scaled-down one, to a field asking for it", () =>
    Effect.gen(function* () {
      const fields = [...defaultFields, { name: "dimensions", description: "" }]
      const result = yield* describeImage(solid(1000, 750, red, { width: 4000, height: 3000 }), { fields })
      expect(result["dimensions"]).toBe("4000 × 3000 pixels")
      expect(result["alternativeText"]).not.toMatch(/\d/)
    }))

  it.effect("puts the keywords in a keywords field only", () =>
    Effect.gen(function* () {
      const fields = [...defaultFields, { name: "tags", description: "" }]
      const result = yield* describeImage(redImage, { fields, keywords: "beach, sunset" })
      expect(result).toStrictEqual({
        ...(yield* describeImage(redImage)),
        tags: "beach, sunset, wide, red, medium brightness"
      })
    }))

  it.effect("fills custom fields with what they ask for when it knows it, with an empty string otherwise", () =>
    Effect.gen(function* () {
      const fields: SchemaFields = [
        { name: "constructor", description: "A caption" },
        { name: "prototype", description: "Some keywords" },
        { name: "dominantColours", description: "" },
        { name: "seo_title", description: "" },
        { name: "price", description: "The product's price" },
        { name: "mood", description: "The mood of the picture" },
        { name: "productName", description: "" }
      ]
      const result = yield* describeImage(redImage, { fields, keywords: "poppy" })
      expect(Object.keys(result)).toStrictEqual(fields.map((field) => field.name))
      expect(result).toStrictEqual({
        constructor: "PNG image, wide, in red, of medium brightness.",
        prototype: "poppy, wide, red, medium brightness",
        dominantColours: "red",
        seo_title: "Wide red image",
        price: "",
        mood: "",
        productName: ""
      })
      expect(Object.getPrototypeOf(result)).toBe(Object.prototype)
    }))

  it.effect.prop(
    "never writes the context: the same answer with any context, none of it copied",
    [fc.string({ minLength: 8, maxLength: limits.contextLength }).filter((context) => context.trim().length >= 8),
      fc.constantFrom(...offlineLanguages)],
    ([context, language]) =>
      Effect.gen(function* () {
        const fields = [...defaultFields, { name: "tags", description: "" }]
        const without = yield* describeImage(redImage, { fields, language, keywords: "poppy" })
        const result = yield* describeImage(redImage, { fields, language, keywords: "poppy", context })
        expect(result).toStrictEqual(without)
        for (const value of Object.values(result)) expect(value).not.toContain(context.trim())
      })
  )

  it.effect("is deterministic", () =>
    Effect.gen(function* () {
      const input = { keywords: "a, b", context: "c", language: "de" }
      const image = halves(300, 200, navy, white)
      const first = yield* describeImage(image, input)
      const second = yield* describeImage(image, input)
      expect(second).toStrictEqual(first)
    }))

  it.effect.prop(
    "answers exactly the requested fields, each a string",
    [
      fc.uniqueArray(fc.string({ minLength: 1, maxLength: limits.fieldNameLength }).filter((name) => name !== "__proto__"), {
        minLength: 1,
        maxLength: limits.schemaFields
      })
    ],
    ([names]) =>
      Effect.gen(function* () {
        const result = yield* describeImage(redImage, { fields: names.map((name) => ({ name, description: "" })) })
        const keys = Object.keys(result)
        expect(new Set(keys)).toStrictEqual(new Set(names))
        expect(keys.filter((key) => !isArrayIndex(key))).toStrictEqual(names.filter((name) => !isArrayIndex(name)))
        for (const name of names) {
          expect(Object.hasOwn(result, name)).toBe(true)
          expect(typeof result[name]).toBe("string")
        }
      })
  )

  describe("languages", () => {
    it.effect("writes French for `fr` and `French` alike", () =>
      Effect.gen(function* () {
        const code = yield* describeImage(redImage, { language: "fr", keywords: "coquelicot", context: "Été" })
        const name = yield* describeImage(redImage, { language: "French", keywords: "coquelicot", context: "Été" })
        expect(name).toStrictEqual(code)
        expect(code).toStrictEqual({
          title: "Image horizontale en rouge",
          alternativeText: "Une image horizontale, principalement en rouge, de luminosité moyenne.",
          caption: "Image PNG, horizontale, en rouge, de luminosité moyenne."
        })
      }))

    it.effect("writes Portuguese for `pt-BR`", () =>
      Effect.gen(function* () {
        const result = yield* describeImage(halves(200, 100, navy, white), { language: "pt-BR" })
        expect(result["title"]).toBe("Imagem horizontal em branco e azul-escuro")
        expect(result["alternativeText"]).toMatch(/^Uma imagem horizontal, principalmente em branco e azul-escuro, /)
      }))

    it.effect.each(["de", "es", "it", "nl"] as const)("writes %s from its own table", (language) =>
      Effect.gen(function* () {
        const english = yield* describeImage(redImage)
        const result = yield* describeImage(redImage, { language })
        expect(result["alternativeText"]).not.toBe(english["alternativeText"])
        expect(result["caption"]).toContain("PNG")
      }))

    it.effect("falls back to English for a language it has no table for", () =>
      Effect.gen(function* () {
        const english = yield* describeImage(redImage, { keywords: "x" })
        expect(yield* describeImage(redImage, { keywords: "x", language: "ja" })).toStrictEqual(english)
        expect(yield* describeImage(redImage, { keywords: "x", language: "Klingon" })).toStrictEqual(english)
      }))

    it.effect.each([
      ["en", "en"], ["fr-CA", "fr"], ["French", "fr"], ["Deutsch", "de"], ["es", "es"], ["pt", "pt-BR"], ["pt-PT", "pt-BR"],
      ["Italian", "it"], ["nl-BE", "nl"], ["Japanese", "en"], ["zh-CN", "en"], ["ja", "en"]
    ] as const)("says it writes %s in %s (its Content-Language)", ([requested, written]) =>
      Effect.map(Describer, (describer) => expect(describer.writtenLanguage(requested)).toBe(written)))
  })
})
