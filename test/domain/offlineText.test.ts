import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { defaultFields, type SchemaField } from "../../src/domain/describe.ts"
import type { ImageFacts } from "../../src/domain/imageFacts.ts"
import { limits } from "../../src/domain/limits.ts"
import { contextExcerpt, countWords, fieldKind, parseKeywords, writeFields } from "../../src/domain/offlineText.ts"

const facts: ImageFacts = {
  format: "jpeg",
  width: 1000,
  height: 667,
  orientation: "landscape",
  frames: 1,
  colours: [{ family: "blue", shade: "dark" }, { family: "white", shade: "normal" }],
  brightness: "bright",
  transparency: "opaque"
}

/** The wordiest facts a summary can hold. */
const busiest: ImageFacts = {
  ...facts,
  frames: 1000,
  colours: [{ family: "teal", shade: "dark" }, { family: "purple", shade: "light" }, { family: "grey", shade: "light" }],
  brightness: "medium",
  transparency: "partial"
}

const field = (name: string, description = ""): SchemaField => ({ name, description })
const write = (fields: ReadonlyArray<SchemaField>, keywords = "", context = "", language = "en") =>
  writeFields({ facts, fields, keywords, context, language })

describe("fieldKind", () => {
  it("recognises the default fields", () => {
    expect(defaultFields.map(fieldKind)).toStrictEqual(["title", "alternativeText", "caption"])
  })

  it.each([
    ["alt_text", "", "alternativeText"],
    ["altText", "", "alternativeText"],
    ["seoKeywords", "", "keywords"],
    ["tags", "", "keywords"],
    ["Mots-clés", "", "keywords"],
    ["dominant_colors", "", "colours"],
    ["colour", "", "colours"],
    ["SEOTitle", "", "title"],
    ["headline", "", "title"],
    ["dimensions", "", "size"],
    ["misc", "A comma-separated list of tags", "keywords"],
    ["summary", "A longer description", "caption"],
    ["foo", "", "caption"],
    // The name is the stronger signal.
    ["title", "Use the keywords in it", "title"]
  ] as const)("%s (%j) -> %s", (name, description, kind) => {
    expect(fieldKind(field(name, description))).toBe(kind)
  })
})

describe("client text", () => {
  it("parses keywords: trimmed, no blanks, no repeats, at most 10, one line each", () => {
    expect(parseKeywords(" beach, ,Sunset , beach ,SUNSET,  sea\nside ")).toStrictEqual(["beach", "Sunset", "sea side"])
    expect(parseKeywords(Array.from({ length: 30 }, (_, i) => `k${i}`).join(","))).toHaveLength(10)
    expect(parseKeywords("")).toStrictEqual([])
    const long = parseKeywords("one two three four five six seven")[0] ?? ""
    expect(long).toBe("one two three four five…")
  })

  it("clips the context to an excerpt", () => {
    expect(contextExcerpt("  Summer\tin  Brittany \n")).toBe("Summer in Brittany")
    expect(contextExcerpt("")).toBe("")
    expect(contextExcerpt("a\u202Eb\u0000c")).toBe("a b c")
    const excerpt = contextExcerpt("word ".repeat(200))
    expect(countWords(excerpt)).toBeLessThanOrEqual(30)
    expect(excerpt.endsWith("…")).toBe(true)
  })
})

describe("writeFields", () => {
  it("writes the default fields from the facts", () => {
    expect(write(defaultFields)).toStrictEqual({
      title: "Dark blue and white landscape image",
      alternativeText: "A landscape image, 1000 by 667 pixels, mostly dark blue and white, bright.",
      caption: "A landscape image, 1000 by 667 pixels, mostly dark blue and white, bright."
    })
  })

  it("attributes keywords and context to the client", () => {
    const result = write(defaultFields, "beach, sunset", "Summer in Brittany")
    expect(result["title"]).toBe("Dark blue and white landscape image (tagged: beach, sunset)")
    expect(result["alternativeText"]).toBe(
      "A landscape image, 1000 by 667 pixels, mostly dark blue and white, bright. Tagged: beach, sunset."
    )
    expect(result["caption"]).toBe(
      "A landscape image, 1000 by 667 pixels, mostly dark blue and white, bright. Tagged: beach, sunset. Context given: “Summer in Brittany”."
    )
  })

  it("answers keyword, colour and size fields with the matching facts", () => {
    expect(write([field("tags"), field("palette"), field("dimensions")], "beach, Landscape")).toStrictEqual({
      tags: "beach, Landscape, dark blue, white, bright",
      palette: "Dominant colours: dark blue and white.",
      dimensions: "1000 by 667 pixels, landscape"
    })
  })

  it("says so when nothing is visible", () => {
    const invisible: ImageFacts = { ...facts, colours: [], brightness: undefined, transparency: "full" }
    expect(writeFields({ facts: invisible, fields: [...defaultFields, field("colours")], keywords: "", context: "", language: "en" }))
      .toStrictEqual({
        title: "Fully transparent landscape image",
        alternativeText: "A landscape image, 1000 by 667 pixels, fully transparent.",
        caption: "A landscape image, 1000 by 667 pixels, fully transparent.",
        colours: "No visible colour: the image is fully transparent."
      })
  })

  it("keeps `constructor` and `prototype` as ordinary own keys", () => {
    const result = write([field("constructor"), field("prototype")])
    expect(Object.keys(result)).toStrictEqual(["constructor", "prototype"])
    expect(typeof result["constructor"]).toBe("string")
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype)
  })

  it.prop(
    "stays far below the answer limit, every field filled",
    [
      fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 64 }), fc.string({ maxLength: 1000 })), {
        minLength: 1,
        maxLength: limits.schemaFields,
        selector: ([name]) => name
      }),
      fc.string({ maxLength: 1000 }),
      fc.string({ maxLength: 1000 }),
      fc.constantFrom("en", "fr", "de", "es", "pt-BR", "it", "nl", "xx")
    ],
    ([pairs, keywords, context, language]) => {
      const fields = pairs.filter(([name]) => name !== "__proto__").map(([name, description]) => field(name, description))
      const result = writeFields({ facts: busiest, fields, keywords, context, language })
      expect(new Set(Object.keys(result))).toStrictEqual(new Set(fields.map((f) => f.name)))
      for (const value of Object.values(result)) expect(value.trim()).not.toBe("")
      const words = Object.values(result).reduce((sum, value) => sum + countWords(value), 0)
      expect(words).toBeLessThanOrEqual(limits.answerWords / 2)
    }
  )

  it("stays within budget with 20 wordy fields and the longest client text", () => {
    const fields = Array.from({ length: 20 }, (_, i) => field(`caption${i}`))
    const keywords = Array.from({ length: 10 }, (_, i) => `word${i} `.repeat(5)).join(",")
    const result = writeFields({ facts: busiest, fields, keywords, context: "long ".repeat(200), language: "fr" })
    const words = Object.values(result).reduce((sum, value) => sum + countWords(value), 0)
    expect(words).toBeLessThanOrEqual(limits.answerWords / 2)
  })
})
