import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { defaultFields, type SchemaField } from "../../src/domain/describe.ts"
import type { ImageFacts } from "../../src/domain/imageFacts.ts"
import { limits } from "../../src/domain/limits.ts"
import { offlineLanguages } from "../../src/domain/offlineLanguage.ts"
import { fieldKind } from "../../src/domain/offlineFieldKind.ts"
import { countWords, parseKeywords, writeFields } from "../../src/domain/offlineText.ts"

const facts: ImageFacts = {
  format: "jpeg",
  width: 1000,
  height: 667,
  orientation: "wide",
  frames: 1,
  colours: [{ family: "blue", shade: "dark" }, { family: "white", shade: "normal" }],
  brightness: "bright",
  transparency: "opaque"
}

/** The wordiest facts a text can hold. */
const busiest: ImageFacts = {
  ...facts,
  frames: 1000,
  colours: [{ family: "teal", shade: "dark" }, { family: "purple", shade: "light" }, { family: "grey", shade: "light" }],
  brightness: "medium",
  transparency: "partial"
}

/** One of each shape the README lists (The offline describer), with sizes whose digits a text could leak. */
const shapes: ReadonlyArray<readonly [string, ImageFacts]> = [
  ["wide", facts],
  ["tall", { ...facts, width: 667, height: 1000, orientation: "tall" }],
  ["square", { ...facts, width: 800, height: 800, orientation: "square" }],
  ["animated", { ...facts, format: "gif", frames: 12, width: 480, height: 270 }],
  ["partly transparent", { ...facts, format: "png", transparency: "partial", width: 512, height: 384 }],
  ["fully transparent", { ...facts, format: "png", colours: [], brightness: undefined, transparency: "full", width: 256, height: 256, orientation: "square" }]
]

/**
 * "Landscape" and "portrait" in the offline languages, the print terms a reader takes for what the
 * image shows; `liggend` and `staand` are the Dutch ones.
 */
const printTerms = /landscape|portrait|paysage|querformat|hochformat|landschaft|portr[aä]t|paisaje|apaisad|retrato|paisagem|paesaggio|ritratto|landschap|portret|liggend|staand/i

const field = (name: string, description = ""): SchemaField => ({ name, description })
const write = (fields: ReadonlyArray<SchemaField>, keywords = "", language = "en", of: ImageFacts = facts) =>
  writeFields({ facts: of, fields, keywords, language })

/** Every kind of field the offline describer answers, by its English name. */
const everyKind = ["title", "alternativeText", "caption", "tags", "colours", "orientation", "brightness", "animated",
  "transparency", "size", "width", "height", "format"].map((name) => field(name))

describe("fieldKind", () => {
  it("recognises the default fields", () => {
    expect(defaultFields.map(fieldKind)).toStrictEqual(["title", "alternativeText", "caption"])
  })

  it.each([
    ["alt_text", "", "alternativeText"],
    ["altText", "", "alternativeText"],
    ["imageDescription", "", "alternativeText"],
    ["seoKeywords", "", "keywords"],
    ["tags", "", "keywords"],
    ["Mots-clés", "", "keywords"],
    ["dominant_colors", "", "colours"],
    ["colour", "", "colours"],
    ["SEOTitle", "", "title"],
    ["headline", "", "title"],
    ["légende", "", "caption"],
    ["dimensions", "", "size"],
    ["orientation", "", "orientation"],
    ["Helligkeit", "", "brightness"],
    ["isAnimated", "", "animation"],
    ["hasTransparency", "", "transparency"],
    ["imageFormat", "", "format"],
    ["misc", "A comma-separated list of tags", "keywords"],
    // The name is the stronger signal.
    ["title", "Use the keywords in it", "title"],
    ["pageTitle", "The title of a shop's page about a book", "title"],
    // Alternative text and captions are the picture's, whatever it shows (review: these were blanked).
    ["coverImageAlt", "Alt text for the cover image", "alternativeText"],
    ["logoAlt", "Alt text of the logo", "alternativeText"],
    ["authorPhotoAlt", "", "alternativeText"],
    ["personImageAlt", "", "alternativeText"],
    ["peopleImageCaption", "", "caption"],
    ["texto_alt_persona", "", "alternativeText"],
    ["misc", "Alt text for people who use screen readers", "alternativeText"],
    ["text", "Auto-generated alt text", "alternativeText"],
    ["shoeTags", "", "keywords"],
    ["colors", "The main colours, for the shoe shop's filters", "colours"]
  ] as const)("%s (%j) -> %s", (name, description, kind) => {
    expect(fieldKind(field(name, description))).toBe(kind)
  })

  it.each([
    ["price", ""],
    ["mood", "The mood of the image"],
    ["productName", ""],
    ["productName", "The name of the product shown, in its colour"],
    ["summary", "A longer description"],
    ["foo", ""],
    // Asked of something in the picture, not of the picture (review: answered with the palette, the
    // image's title, its size in pixels).
    ["eyeColor", "The eye colour of the person"],
    ["carColor", "Colour of the car"],
    ["bookTitle", "The title of the book shown on the cover"],
    ["jobTitle", "The job title of the person"],
    ["songTitle", ""],
    ["personHeight", "The person height in cm"],
    ["sizeOfShoe", ""],
    ["formatOfPackaging", ""],
    ["couleurDesYeux", ""],
    ["misc", "The colour of the car in the picture"]
  ] as const)("%s (%j) asks for nothing it knows", (name, description) => {
    expect(fieldKind(field(name, description))).toBeUndefined()
  })
})

describe("parseKeywords", () => {
  it("trims, drops blanks and repeats, keeps at most 10, one line each", () => {
    expect(parseKeywords(" beach, ,Sunset , beach ,SUNSET,  sea\nside ")).toStrictEqual(["beach", "Sunset", "sea side"])
    expect(parseKeywords(Array.from({ length: 30 }, (_, i) => `k${i}`).join(","))).toHaveLength(10)
    expect(parseKeywords("")).toStrictEqual([])
    const long = parseKeywords("one two three four five six seven")[0] ?? ""
    expect(long).toBe("one two three four five…")
  })
})

describe("writeFields", () => {
  it("writes the default fields, each for its own reader, from the facts", () => {
    expect(write(defaultFields)).toStrictEqual({
      title: "Wide dark blue and white image",
      alternativeText: "A wide image, mostly dark blue and white, bright.",
      caption: "JPEG image, wide, in dark blue and white, bright."
    })
  })

  it("keeps the keywords out of the title, alternative text and caption", () => {
    expect(write(defaultFields, "beach, sunset")).toStrictEqual(write(defaultFields))
  })

  it("answers each field it knows with its fact, and leaves the others empty", () => {
    expect(write([...everyKind, field("price"), field("mood"), field("productName")], "beach, Wide")).toStrictEqual({
      title: "Wide dark blue and white image",
      alternativeText: "A wide image, mostly dark blue and white, bright.",
      caption: "JPEG image, wide, in dark blue and white, bright.",
      tags: "beach, Wide, dark blue, white, bright",
      colours: "dark blue, white",
      orientation: "wide",
      brightness: "bright",
      animated: "not animated",
      transparency: "opaque",
      size: "1000 × 667 pixels",
      width: "1000 pixels",
      height: "667 pixels",
      format: "JPEG",
      price: "",
      mood: "",
      productName: ""
    })
  })

  it("says what it can of an animated image and of one with nothing visible", () => {
    const animated = shapes[3]?.[1] ?? facts
    expect(write([...defaultFields, field("animated")], "", "en", animated)).toStrictEqual({
      title: "Animated wide dark blue and white image",
      alternativeText: "An animated wide image, mostly dark blue and white, bright.",
      caption: "GIF animation of 12 frames, wide, in dark blue and white, bright.",
      animated: "animated (12 frames)"
    })
    const invisible = shapes[5]?.[1] ?? facts
    expect(write([...defaultFields, field("colours"), field("brightness"), field("tags")], "", "en", invisible)).toStrictEqual({
      title: "Fully transparent square image",
      alternativeText: "A square image, fully transparent.",
      caption: "PNG image, square, fully transparent.",
      colours: "",
      brightness: "",
      tags: "square, transparent"
    })
  })

  describe.each(offlineLanguages)("in %s", (language) => {
    it.each(shapes)("a %s image: plain shape words, no pixel count in the title or alternative text, three different texts", (_, shape) => {
      const result = write(everyKind, "", language, shape)
      for (const value of Object.values(result)) expect(value).not.toMatch(printTerms)
      const { title = "", alternativeText = "", caption = "" } = result
      for (const text of [title, alternativeText]) expect(text).not.toMatch(/\d/)
      for (const size of [shape.width, shape.height]) expect(caption).not.toContain(String(size))
      expect(new Set([title, alternativeText, caption]).size).toBe(3)
      for (const text of [title, alternativeText, caption]) expect(text.trim()).not.toBe("")
    })

    it("fills the fields it can answer, empties the others", () => {
      const result = write([...everyKind, field("price"), field("mood"), field("productName")], "poppy", language)
      for (const name of ["price", "mood", "productName"]) expect(result[name]).toBe("")
      for (const { name } of everyKind) expect(result[name]?.trim()).not.toBe("")
      expect(result["tags"]?.startsWith("poppy, ")).toBe(true)
    })
  })

  it("keeps `constructor` and `prototype` as ordinary own keys", () => {
    const result = write([field("constructor"), field("prototype")])
    expect(Object.keys(result)).toStrictEqual(["constructor", "prototype"])
    expect(result).toStrictEqual({ constructor: "", prototype: "" })
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype)
  })

  it.prop(
    "stays far below the answer limit, every field a string",
    [
      fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 64 }), fc.string({ maxLength: 1000 })), {
        minLength: 1,
        maxLength: limits.schemaFields,
        selector: ([name]) => name
      }),
      fc.string({ maxLength: 1000 }),
      fc.constantFrom("en", "fr", "de", "es", "pt-BR", "it", "nl", "xx")
    ],
    ([pairs, keywords, language]) => {
      const fields = pairs.filter(([name]) => name !== "__proto__").map(([name, description]) => field(name, description))
      const result = writeFields({ facts: busiest, fields, keywords, language })
      expect(new Set(Object.keys(result))).toStrictEqual(new Set(fields.map((f) => f.name)))
      for (const value of Object.values(result)) expect(typeof value).toBe("string")
      const words = Object.values(result).reduce((sum, value) => sum + countWords(value), 0)
      expect(words).toBeLessThanOrEqual(limits.answerWords / 2)
    }
  )

  it("stays within budget with 20 keyword fields and the longest keywords", () => {
    const fields = Array.from({ length: 20 }, (_, i) => field(`tags${i}`))
    const keywords = Array.from({ length: 10 }, (_, i) => `word${i} `.repeat(5)).join(",")
    const result = writeFields({ facts: busiest, fields, keywords, language: "fr" })
    const words = Object.values(result).reduce((sum, value) => sum + countWords(value), 0)
    expect(words).toBeLessThanOrEqual(limits.answerWords / 2)
  })
})
