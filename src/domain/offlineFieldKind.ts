/**
 * Which of the things the offline describer knows a requested field asks for (offlineText.ts
 * writes it), read from the field's name and description in English and the offline languages.
 */
import type { SchemaField } from "./describe.ts"

/** What a field asks for, among what the offline describer knows. */
export type FieldKind =
  | "title"
  | "alternativeText"
  | "caption"
  | "keywords"
  | "colours"
  | "orientation"
  | "brightness"
  | "animation"
  | "transparency"
  | "size"
  | "width"
  | "height"
  | "format"

/**
 * Words (regular-expression fragments, matched on `fold`ed text) that reveal what a field asks for,
 * in English and the offline languages. Order matters: `keywordsTitle` is keywords, `altTitle` a
 * title, `imageFormat` a format.
 */
const kindWords: ReadonlyArray<readonly [FieldKind, ReadonlyArray<string>]> = [
  ["keywords", [
    "key ?words?", "key ?phrases?", "tags?", "hashtags?", "labels?", "mots? cles?", "schlagwort\\w*", "stichwort\\w*",
    "palabras? claves?", "etiquetas?", "palavras? chaves?", "parole chiave", "trefwoord\\w*"
  ]],
  ["colours", ["colou?rs?", "palette", "couleurs?", "farben?", "colores", "colori", "colore", "cor", "cores", "kleur\\w*"]],
  ["title", ["titles?", "headlines?", "headings?", "titre", "titel", "titulo", "titolo"]],
  ["alternativeText", [
    "alt", "alternative?", "alternatif", "alternativo", "alternativtext", "accessibility", "screen ?readers?",
    "image descriptions?"
  ]],
  ["caption", [
    "captions?", "legendes?", "legendas?", "bildunterschrift\\w*", "pie de (?:foto|imagen)", "didascali\\w*",
    "bijschrift\\w*", "onderschrift\\w*"
  ]],
  ["orientation", ["orientation", "ausrichtung", "orientacion", "orientacao", "orientamento", "orientatie"]],
  ["brightness", [
    "brightness", "lightness", "luminosity", "luminosite", "helligkeit", "luminosidad", "brillo", "luminosidade", "brilho",
    "luminosita", "helderheid"
  ]],
  ["animation", [
    "animated", "animations?", "animee", "animiert", "animada", "animata", "geanimeerd", "animacion", "animacao",
    "animazione", "animatie"
  ]],
  ["transparency", ["transparen\\w*", "trasparen\\w*", "transparan\\w*", "alpha", "opacity", "opaque"]],
  ["size", [
    "size", "dimension\\w*", "dimensoes", "dimensioni", "resolution", "taille", "tamano", "tamanho", "abmessung\\w*",
    "afmeting\\w*"
  ]],
  ["width", ["width", "largeur", "breite", "ancho", "anchura", "largura", "larghezza", "breedte"]],
  ["height", ["height", "hauteur", "hohe", "altura", "altezza", "hoogte"]],
  ["format", [
    "formats?", "file ?types?", "mime ?types?", "media ?types?", "content ?types?", "dateiformat", "formato",
    "bestandsformaat"
  ]]
]

const kindPatterns = kindWords.map(([kind, words]) => [kind, new RegExp(`\\b(?:${words.join("|")})\\b`)] as const)

/** `alternativeText`, `SEOTitle`, `alt_text`, `Mots-clés` -> `alternative text`, `seo title`, `alt text`, `mots cles`. */
const fold = (text: string): string =>
  text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")

/**
 * Things in a picture, whose colour, title or size the image's own facts do not give: an
 * `eyeColor` is not the image's palette, a `bookTitle` not a title of the image, a `personHeight`
 * not its height in pixels (found by review: each was answered as if it were). In English and the
 * offline languages. Alternative text, captions and keywords are the picture's whatever it shows
 * (`logoAlt`, `coverCaption`), so these words do not count for them.
 */
const subjectPattern = new RegExp(`\\b(?:${[
  "eyes?", "hair", "skin", "faces?", "persons?", "people", "man", "men", "woman", "women", "child\\w*", "animals?", "dogs?", "cats?",
  "cars?", "vehicles?", "books?", "songs?", "albums?", "movies?", "films?", "jobs?", "shoes?", "shirts?", "dress\\w*",
  "packag\\w*", "brands?", "logos?", "authors?", "artists?", "prices?",
  "yeux", "cheveux", "personne", "voiture", "livre", "chanson", "metier", "chaussures?", "emballage", "marque",
  "augen?", "haare?", "person", "buch", "lied", "beruf", "schuhe?", "verpackung", "marke",
  "ojos?", "pelo", "persona", "coche", "libro", "cancion", "trabajo", "zapatos?", "envase", "marca",
  "olhos?", "cabelo", "pessoa", "carro", "livro", "musica", "sapatos?", "embalagem",
  "occhi", "capelli", "macchina", "canzone", "lavoro", "scarpe", "confezione",
  "ogen", "persoon", "boek", "liedje", "beroep", "schoenen", "verpakking", "merk"
].join("|")})\\b`)

/** The kinds that are the picture's own whatever it shows. */
const ofAnyPicture: ReadonlyArray<FieldKind> = ["alternativeText", "caption", "keywords"]

/** Asked of a thing in the picture rather than of the picture: a field the describer cannot answer. */
const ofSubject = "ofSubject"

const kindIn = (folded: string): FieldKind | typeof ofSubject | undefined => {
  const kind = kindPatterns.find(([, pattern]) => pattern.test(folded))?.[0]
  return kind !== undefined && !ofAnyPicture.includes(kind) && subjectPattern.test(folded) ? ofSubject : kind
}

/**
 * A description's head: `A comma-separated list of tags` asks for tags, while `The product's name,
 * in its colour` asks for a name that merely mentions a colour.
 */
const descriptionHead = 6

/**
 * The name is the client's most deliberate signal, so it wins over the description, which counts
 * only by its first words. Undefined: a field the offline describer cannot answer.
 */
export const fieldKind = (field: SchemaField): FieldKind | undefined => {
  const kind = kindIn(fold(field.name)) ?? kindIn(fold(field.description).trim().split(" ").slice(0, descriptionHead).join(" "))
  return kind === ofSubject ? undefined : kind
}
