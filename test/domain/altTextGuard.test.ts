import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { guardAltText } from "../../src/domain/altTextGuard.ts"

/** Openers as stripped, with the start of what follows them (an article where the language needs one). */
const openers = [
  ["Image of ", ""],
  ["An image of ", ""],
  ["A photo of ", ""],
  ["Photo of ", ""],
  ["A photograph of ", ""],
  ["Picture of ", ""],
  ["A picture of ", ""],
  ["An illustration of ", ""],
  ["This is a photo of ", ""],
  ["Image de ", "la "],
  ["Photo de ", "l'"],
  ["Une photo d'", "un "],
  ["Photo d\u2019", "une "],
  ["Photographie de ", "la "],
  ["Imagen de ", "una "],
  ["Foto de ", "los "],
  ["Una foto de ", "un "],
  ["Ilustración de ", "unas "],
  ["Immagine di ", "un "],
  ["Un'immagine di ", "una "],
  ["Foto di ", "un'"],
  ["Imagem de ", "um "],
  ["Uma foto de ", "uma "],
  ["Afbeelding van ", "de "],
  ["Een foto van ", "een "]
] as const

/** Upper, lower or as written, letter by letter: matching ignores case. */
const anyCase = (text: string) =>
  fc.array(fc.constantFrom("upper", "lower", "same"), { minLength: text.length, maxLength: text.length }).map((cases) =>
    Array.from(text, (char, i) => (cases[i] === "upper" ? char.toUpperCase() : cases[i] === "lower" ? char.toLowerCase() : char)).join("")
  )

/** A word of lower-case letters that starts none of the openers (so the text after it is left). */
const word = fc.stringMatching(/^[a-zà-ÿ]{1,8}$/)
const plainWord = word.filter((w) => !openers.some(([opening]) => opening.toLowerCase().split(/[ '\u2019]/)[0] === w))
/** Whitespace as models write it: doubled spaces, tabs, line breaks of all kinds, no-break spaces. */
const whitespace = fc.stringMatching(/^[ \t\n\r\u00a0\u2028\u3000]{1,4}$/)
/** Words joined by one plain space, the first no opener: already tidy. */
const tidy = fc.tuple(plainWord, fc.array(word, { maxLength: 8 })).map(([first, rest]) => [first, ...rest].join(" "))
/** Words, punctuation and whitespace in any mix, sometimes behind an opener or two. */
const messy = fc
  .tuple(
    fc.array(fc.constantFrom(...openers).map(([opening, article]) => opening + article), { maxLength: 2 }),
    fc.array(fc.oneof(word, whitespace, fc.constantFrom(".", ",", "'", "é", "I", "of", "de", "photo", "image")), { maxLength: 12 })
  )
  .map(([opening, parts]) => opening.join("") + parts.join(""))
const anyText = fc.oneof(messy, fc.string(), fc.string({ unit: "grapheme" }))

describe("guardAltText", () => {
  it("tidies the adapter's example: the opener and the doubled space go", () => {
    expect(guardAltText("Image of a red bicycle  leaning on a wall")).toBe("A red bicycle leaning on a wall")
  })

  it.each([
    ["A photo of a dog on a beach", "A dog on a beach"],
    ["Picture of Paris at night", "Paris at night"],
    ["An illustration of the water cycle", "The water cycle"],
    ["IMAGE OF a cat", "A cat"],
    ["This is an image of a chart", "A chart"],
    ["Image of image of a cat", "A cat"],
    ["Image of\na cat", "A cat"],
    ["Image de la tour Eiffel", "La tour Eiffel"],
    ["Photo d\u2019un vélo rouge", "Un vélo rouge"],
    ["Une photo de l'église", "L'église"],
    ["Imagen de una bicicleta roja", "Una bicicleta roja"],
    ["Foto de un perro", "Un perro"],
    ["Un'immagine di un gatto", "Un gatto"],
    ["Foto de uma bicicleta", "Uma bicicleta"],
    ["Een foto van een rode fiets", "Een rode fiets"],
    ["Image of iPhone packaging", "iPhone packaging"]
  ])("%j -> %j", (input, output) => {
    expect(guardAltText(input)).toBe(output)
  })

  it.each([
    ["an opener alone", "Image of"],
    ["an opener and a full stop", "A photo of."],
    ["an opener before no article, in French", "Photo de famille au jardin"],
    ["a French set phrase", "Image de marque de la ville"],
    ["a French noun complement", "Photo d'identité"],
    ["a contracted article", "Foto del puerto"],
    ["German, where the dative would remain", "Foto von einem roten Fahrrad"],
    ["a longer word", "Imagery of light"],
    ["a plural", "Photos of the team"],
    ["an opener later in the text", "A dog. Image of a cat"],
    ["a lower-case start", "a dog on a beach"]
  ])("leaves %s", (_, input) => {
    expect(guardAltText(input)).toBe(input)
  })

  it.prop("strips each opener in any case when text follows, and capitalises what follows", [
    fc.constantFrom(...openers).chain(([opening, article]) => fc.tuple(anyCase(opening), fc.constant(article))),
    tidy
  ], ([[opening, article], rest]) => {
    // An elided article ("l'", "un'") is one only before a letter: "l'÷a" is no noun phrase.
    fc.pre(!/['\u2019]$/.test(article) || /^\p{L}/u.test(rest))
    const expected = `${article}${rest}`
    expect(guardAltText(opening + expected)).toBe(expected.charAt(0).toUpperCase() + expected.slice(1))
  })

  it.prop("leaves tidy text that starts with no opener as it is", [tidy], ([text]) => {
    expect(guardAltText(text)).toBe(text)
  })

  it.prop("collapses whitespace: one space, one line break or one blank line between words, none at the ends", [anyText], ([text]) => {
    const guarded = guardAltText(text)
    expect(guarded).toBe(guarded.trim())
    for (const run of guarded.match(/\s+/g) ?? []) expect(["\n", "\n\n"].includes(run) || /^\p{Zs}$/u.test(run), JSON.stringify(run)).toBe(true)
  })

  it.prop("keeps the words: only whitespace changes when no opener is stripped", [fc.tuple(plainWord, whitespace, messy)], ([[first, space, rest]]) => {
    const text = `${first}${space}${rest}`
    expect(guardAltText(text).split(/\s+/).join(" ")).toBe(text.trim().split(/\s+/).join(" "))
  })

  it.prop("is idempotent", [anyText], ([text]) => {
    expect(guardAltText(guardAltText(text))).toBe(guardAltText(text))
  })

  it.prop("never lengthens a value", [anyText], ([text]) => {
    expect(guardAltText(text).length).toBeLessThanOrEqual(text.length)
  })
})
