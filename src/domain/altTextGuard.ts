/**
 * A last tidy-up of the values a model writes (docs/model-endpoints.md, "What the model is asked").
 * The prompt already asks for this; models do not always listen. Pure, idempotent, and it never
 * makes a value longer.
 *
 * - Whitespace: a run holding two line breaks or more becomes one blank line, a run holding one
 *   becomes one line break (custom fields may ask for lines or paragraphs), any other run one
 *   space; a lone space stays as written (a French no-break space before ":" included). Trimmed.
 * - In the default fields only, a leading "Image of", "A photo of"...: screen readers already say it
 *   is an image, so the words only delay what it shows (W3C WAI images tutorial). A schema's own
 *   field may mean them ("Picture of Dorian Gray", a book's title), so there only the prompt asks. Removed only when text follows, and the
 *   rest then starts with a capital. In French, Spanish, Italian, Portuguese and Dutch only before
 *   an article ("Photo d'un vélo", "Foto de una bicicleta"), so the rest is a noun phrase as it
 *   stands and "Photo de famille" (a family photo) or "Image de marque" keep their meaning. Not in
 *   German: "von" takes the dative, and "Foto von einem Fahrrad" would leave "Einem Fahrrad".
 */

const lineBreak = /\r\n|[\n\r\u2028\u2029]/g

/** The whitespace rule above, applied to one maximal run of whitespace. */
const collapsedRun = (run: string): string => {
  const breaks = run.match(lineBreak)?.length ?? 0
  if (breaks > 1) return "\n\n"
  if (breaks === 1) return "\n"
  return /^\p{Zs}$/u.test(run) ? run : " "
}

/** The whitespace rule alone: what every value of a schema's own fields gets. */
export const collapseWhitespace = (text: string): string => text.trim().replace(/\s+/g, collapsedRun)

/** An apostrophe as typed or as typeset. */
const apostrophe = "['\u2019]"

/**
 * One opener per language, anchored at the start, ending where the described thing begins; the
 * lookaheads ask for more text after it (the article and a word, for the languages with one).
 */
const openers: ReadonlyArray<string> = [
  // English: "Image of", "A photo of", "This is an illustration of"
  String.raw`(?:this\s+is\s+)?(?:an?\s+)?(?:image|photo|photograph|picture|illustration)\s+of\s+(?=\S)`,
  // French: "Image de la", "Une photo de l'", "Photo d'un(e)" ("de" + "le"/"les" is "du"/"des": left)
  String.raw`(?:une\s+)?(?:image|photo|photographie|illustration)\s+(?:de\s+(?=la\s+\S|l${apostrophe}\p{L})|d${apostrophe}(?=une?\s+\S))`,
  // Spanish: "Imagen de una", "Una foto de los" ("de" + "el" is "del": left)
  String.raw`(?:una\s+)?(?:imagen|foto|fotografía|ilustración)\s+de\s+(?=(?:una?|unos|unas|la|las|los)\s+\S)`,
  // Italian: "Un'immagine di un", "Foto di una" (definite articles contract with "di": left)
  String.raw`(?:una\s+|un${apostrophe})?(?:immagine|foto|fotografia|illustrazione)\s+di\s+(?=(?:un|uno|una)\s+\S|un${apostrophe}\p{L})`,
  // Portuguese: "Imagem de um", "Uma foto de uma" (definite articles contract with "de": left)
  String.raw`(?:uma\s+)?(?:imagem|foto|fotografia|ilustração)\s+de\s+(?=(?:um|uma|uns|umas)\s+\S)`,
  // Dutch: "Een foto van een", "Afbeelding van de"
  String.raw`(?:een\s+)?(?:afbeelding|foto|illustratie|plaatje)\s+van\s+(?=(?:een|de|het)\s+\S)`
]

const opener = new RegExp(`^(?:${openers.join("|")})`, "iu")

/** "a red bicycle" -> "A red bicycle"; a first word already in mixed case ("iPhone") is left. */
const capitalised = (text: string): string => {
  if (/^\p{Ll}+\p{Lu}/u.test(text)) return text
  const [first = ""] = text
  return first.toUpperCase() + text.slice(first.length)
}

/** The value with its whitespace collapsed and any leading "Image of" (repeated or not) removed. */
export const guardAltText = (value: string): string => {
  let text = collapseWhitespace(value)
  let stripped = false
  for (let found = opener.exec(text); found !== null; found = opener.exec(text)) {
    text = text.slice(found[0].length)
    stripped = true
  }
  return stripped ? capitalised(text) : text
}
