import { describe, expect, layer } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import { type DescribeRequest, defaultFields, type PreparedImage, type SchemaFields } from "../../src/domain/describe.ts"
import { limits } from "../../src/domain/limits.ts"
import { Describer } from "../../src/services/Describer.ts"
import * as OfflineDescriber from "../../src/services/OfflineDescriber.ts"
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
  Effect.flatMap(Describer, (describer) => describer.describe(request(image, options)))

const redImage = solid(200, 100, red)

/** Object keys list integer-like names first whatever the insertion order (a JavaScript rule). */
const isArrayIndex = (name: string): boolean => /^(0|[1-9]\d*)$/.test(name) && Number(name) < 2 ** 32 - 1

layer(OfflineDescriber.layer)("OfflineDescriber", (it) => {
  it.effect("is named offline", () =>
    Effect.map(Describer, (describer) => expect(describer.name).toBe("offline")))

  it.effect("writes from what its start took of the pixels: released after the start, the same answer", () =>
    Effect.gen(function* () {
      const describer = yield* Describer
      const image = halves(40, 20, navy, clear)
      const expected = yield* describer.describe(request(image))
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
        title: "Red landscape image",
        alternativeText: "A landscape image, 200 by 100 pixels, mostly red, of medium brightness.",
        caption: "A landscape image, 200 by 100 pixels, mostly red, of medium brightness."
      })
    }))

  it.effect("names both colours of a half black, half white image", () =>
    Effect.gen(function* () {
      const result = yield* describeImage(halves(100, 200, black, white))
      expect(result["alternativeText"]).toBe("A portrait image, 100 by 200 pixels, mostly black and white, of medium brightness.")
    }))

  it.effect("says when an image is fully or partly transparent", () =>
    Effect.gen(function* () {
      const invisible = yield* describeImage(solid(64, 64, clear, { hasAlpha: true }))
      expect(invisible["title"]).toBe("Fully transparent square image")
      expect(invisible["alternativeText"]).toBe("A square image, 64 by 64 pixels, fully transparent.")
      const half = yield* describeImage(halves(200, 100, clear, navy))
      expect(half["alternativeText"]).toBe("A landscape image, 200 by 100 pixels, mostly dark blue, dark, partly transparent.")
    }))

  it.effect("mentions animation only for more than one frame", () =>
    Effect.gen(function* () {
      const still = yield* describeImage(solid(200, 100, red, { format: "gif", frames: 1 }))
      const animated = yield* describeImage(solid(200, 100, red, { format: "gif", frames: 12 }))
      expect(still["alternativeText"]).not.toMatch(/animated|frames/)
      expect(animated["title"]).toBe("Animated red landscape image")
      expect(animated["alternativeText"]).toMatch(/^An animated landscape image \(12 frames\), /)
    }))

  it.effect("gives the uploaded size, not the scaled-down one", () =>
    Effect.gen(function* () {
      const result = yield* describeImage(solid(1000, 750, red, { width: 4000, height: 3000 }))
      expect(result["alternativeText"]).toContain("4000 by 3000 pixels")
    }))

  it.effect("weaves in keywords and context, attributed to the client", () =>
    Effect.gen(function* () {
      const result = yield* describeImage(redImage, { keywords: "beach, sunset", context: "Summer in Brittany" })
      expect(result["title"]).toBe("Red landscape image (tagged: beach, sunset)")
      expect(result["alternativeText"]).toBe(
        "A landscape image, 200 by 100 pixels, mostly red, of medium brightness. Tagged: beach, sunset."
      )
      expect(result["caption"]).toBe(
        "A landscape image, 200 by 100 pixels, mostly red, of medium brightness. Tagged: beach, sunset. Context given: “Summer in Brittany”."
      )
    }))

  it.effect("fills custom fields by what they ask for", () =>
    Effect.gen(function* () {
      const fields: SchemaFields = [
        { name: "constructor", description: "A caption" },
        { name: "prototype", description: "Some keywords" },
        { name: "dominantColours", description: "" },
        { name: "seo_title", description: "" }
      ]
      const result = yield* describeImage(redImage, { fields, keywords: "poppy" })
      expect(Object.keys(result)).toStrictEqual(["constructor", "prototype", "dominantColours", "seo_title"])
      expect(result).toStrictEqual({
        constructor: "A landscape image, 200 by 100 pixels, mostly red, of medium brightness. Tagged: poppy.",
        prototype: "poppy, landscape, red, medium brightness",
        dominantColours: "Dominant colours: red.",
        seo_title: "Red landscape image (tagged: poppy)"
      })
      expect(Object.getPrototypeOf(result)).toBe(Object.prototype)
    }))

  it.effect("is deterministic", () =>
    Effect.gen(function* () {
      const input = { keywords: "a, b", context: "c", language: "de" }
      const image = halves(300, 200, navy, white)
      const first = yield* describeImage(image, input)
      const second = yield* describeImage(image, input)
      expect(second).toStrictEqual(first)
    }))

  it.effect.prop(
    "answers exactly the requested fields, each a non-empty string",
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
          expect(result[name]?.trim()).not.toBe("")
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
          title: "Image au format paysage en rouge (mots-clés : coquelicot)",
          alternativeText:
            "Une image au format paysage, 200 × 100 pixels, principalement en rouge, de luminosité moyenne. Mots-clés fournis : coquelicot.",
          caption:
            "Une image au format paysage, 200 × 100 pixels, principalement en rouge, de luminosité moyenne. Mots-clés fournis : coquelicot. Contexte fourni : « Été »."
        })
      }))

    it.effect("writes Portuguese for `pt-BR`", () =>
      Effect.gen(function* () {
        const result = yield* describeImage(halves(200, 100, navy, white), { language: "pt-BR" })
        expect(result["title"]).toBe("Imagem horizontal em branco e azul-escuro")
        expect(result["alternativeText"]).toMatch(/^Uma imagem horizontal, 200 × 100 pixels, principalmente em branco e azul-escuro, /)
      }))

    it.effect.each(["de", "es", "it", "nl"] as const)("writes %s from its own table", (language) =>
      Effect.gen(function* () {
        const english = yield* describeImage(redImage)
        const result = yield* describeImage(redImage, { language })
        expect(result["alternativeText"]).not.toBe(english["alternativeText"])
        expect(result["alternativeText"]).toContain("200 × 100")
      }))

    it.effect("falls back to English for a language it has no table for", () =>
      Effect.gen(function* () {
        const english = yield* describeImage(redImage, { keywords: "x" })
        expect(yield* describeImage(redImage, { keywords: "x", language: "ja" })).toStrictEqual(english)
        expect(yield* describeImage(redImage, { keywords: "x", language: "Klingon" })).toStrictEqual(english)
      }))
  })
})
