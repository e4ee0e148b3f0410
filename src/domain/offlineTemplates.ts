/**
 * The offline describer's wording, one table per language of `offlineLanguage.ts`. Each table says
 * only what `ImageFacts` measured and attributes the client's keywords and context to the client, so
 * no language can claim to see objects or scenes. Sentences are built so colour names need no
 * agreement (`en bleu et blanc`, German nouns `in Dunkelblau`): one name per colour fits everywhere.
 */
import type { ImageFacts } from "./imageFacts.ts"
import type { OfflineLanguage } from "./offlineLanguage.ts"
import { colourNames, isAnimated, sentence, type Tags, type Templates, transparencyWord, words } from "./offlineWording.ts"

const fullyTransparent = (facts: ImageFacts): boolean => facts.transparency === "full"

const enTags: Tags = {
  orientation: { landscape: "landscape", portrait: "portrait", square: "square" },
  brightness: { dark: "dark", medium: "medium brightness", bright: "bright" },
  animated: "animated",
  transparent: "transparent"
}

const en: Templates = {
  colour: colourNames(
    { black: "black", white: "white", grey: "grey", red: "red", orange: "orange", yellow: "yellow", green: "green",
      teal: "teal", blue: "blue", purple: "purple", pink: "pink", brown: "brown" },
    (name, shade) => `${shade} ${name}`
  ),
  and: "and",
  summary: (facts, colours) =>
    sentence([
      isAnimated(facts) ? `an animated ${facts.orientation} image (${facts.frames} frames)` : `a ${facts.orientation} image`,
      `${facts.width} by ${facts.height} pixels`,
      colours && `mostly ${colours}`,
      facts.brightness && { dark: "dark", medium: "of medium brightness", bright: "bright" }[facts.brightness],
      transparencyWord(facts, { partial: "partly transparent", full: "fully transparent" })
    ]),
  title: (facts, colours) =>
    words([fullyTransparent(facts) && "fully transparent", isAnimated(facts) && "animated", colours, facts.orientation, "image"]),
  size: (facts) => `${facts.width} by ${facts.height} pixels, ${enTags.orientation[facts.orientation]}`,
  colours: (colours) => (colours ? `Dominant colours: ${colours}.` : "No visible colour: the image is fully transparent."),
  tagged: (keywords) => `Tagged: ${keywords}.`,
  titleTags: (keywords) => `tagged: ${keywords}`,
  context: (excerpt) => `Context given: “${excerpt}”.`,
  tags: enTags
}

const frOrientation = { landscape: "au format paysage", portrait: "au format portrait", square: "carrée" } as const
const frTags: Tags = {
  orientation: { landscape: "paysage", portrait: "portrait", square: "carré" },
  brightness: { dark: "sombre", medium: "luminosité moyenne", bright: "lumineux" },
  animated: "animé",
  transparent: "transparent"
}

const fr: Templates = {
  colour: colourNames(
    { black: "noir", white: "blanc", grey: "gris", red: "rouge", orange: "orange", yellow: "jaune", green: "vert",
      teal: "bleu-vert", blue: "bleu", purple: "violet", pink: "rose", brown: "marron" },
    (name, shade) => `${name} ${shade === "dark" ? "foncé" : "clair"}`
  ),
  and: "et",
  summary: (facts, colours) =>
    sentence([
      `une image${isAnimated(facts) ? ` animée (${facts.frames} images)` : ""} ${frOrientation[facts.orientation]}`,
      `${facts.width} × ${facts.height} pixels`,
      colours && `principalement en ${colours}`,
      facts.brightness && { dark: "sombre", medium: "de luminosité moyenne", bright: "lumineuse" }[facts.brightness],
      transparencyWord(facts, { partial: "partiellement transparente", full: "entièrement transparente" })
    ]),
  title: (facts, colours) =>
    words(["image", isAnimated(facts) && "animée", frOrientation[facts.orientation],
      fullyTransparent(facts) && "entièrement transparente", colours && `en ${colours}`]),
  size: (facts) => `${facts.width} × ${facts.height} pixels, ${frTags.orientation[facts.orientation]}`,
  colours: (colours) =>
    colours ? `Couleurs dominantes : ${colours}.` : "Aucune couleur visible : l’image est entièrement transparente.",
  tagged: (keywords) => `Mots-clés fournis : ${keywords}.`,
  titleTags: (keywords) => `mots-clés : ${keywords}`,
  context: (excerpt) => `Contexte fourni : « ${excerpt} ».`,
  tags: frTags
}

const deOrientation = { landscape: "im Querformat", portrait: "im Hochformat", square: "im quadratischen Format" } as const
const deTags: Tags = {
  orientation: { landscape: "Querformat", portrait: "Hochformat", square: "quadratisch" },
  brightness: { dark: "dunkel", medium: "mittelhell", bright: "hell" },
  animated: "animiert",
  transparent: "transparent"
}

const de: Templates = {
  // Nouns, capitalised; shades as compounds: `Dunkelblau`, `Hellgrau`.
  colour: colourNames(
    { black: "Schwarz", white: "Weiß", grey: "Grau", red: "Rot", orange: "Orange", yellow: "Gelb", green: "Grün",
      teal: "Türkis", blue: "Blau", purple: "Lila", pink: "Rosa", brown: "Braun" },
    (name, shade) => `${shade === "dark" ? "Dunkel" : "Hell"}${name.toLowerCase()}`
  ),
  and: "und",
  summary: (facts, colours) =>
    sentence([
      `ein ${isAnimated(facts) ? `animiertes Bild (${facts.frames} Einzelbilder)` : "Bild"} ${deOrientation[facts.orientation]}`,
      `${facts.width} × ${facts.height} Pixel`,
      colours && `überwiegend in ${colours}`,
      facts.brightness && deTags.brightness[facts.brightness],
      transparencyWord(facts, { partial: "teilweise transparent", full: "vollständig transparent" })
    ]),
  title: (facts, colours) =>
    words([fullyTransparent(facts) && "vollständig transparentes", isAnimated(facts) && "animiertes", "Bild",
      deOrientation[facts.orientation], colours && `in ${colours}`]),
  size: (facts) => `${facts.width} × ${facts.height} Pixel, ${deTags.orientation[facts.orientation]}`,
  colours: (colours) =>
    colours ? `Vorherrschende Farben: ${colours}.` : "Keine sichtbare Farbe: Das Bild ist vollständig transparent.",
  tagged: (keywords) => `Angegebene Schlagwörter: ${keywords}.`,
  titleTags: (keywords) => `Schlagwörter: ${keywords}`,
  context: (excerpt) => `Angegebener Kontext: „${excerpt}“.`,
  tags: deTags
}

const esTags: Tags = {
  orientation: { landscape: "horizontal", portrait: "vertical", square: "cuadrada" },
  brightness: { dark: "oscura", medium: "luminosidad media", bright: "luminosa" },
  animated: "animada",
  transparent: "transparente"
}

const es: Templates = {
  colour: colourNames(
    { black: "negro", white: "blanco", grey: "gris", red: "rojo", orange: "naranja", yellow: "amarillo", green: "verde",
      teal: "turquesa", blue: "azul", purple: "morado", pink: "rosa", brown: "marrón" },
    (name, shade) => `${name} ${shade === "dark" ? "oscuro" : "claro"}`
  ),
  and: "y",
  summary: (facts, colours) =>
    sentence([
      `una imagen ${esTags.orientation[facts.orientation]}${isAnimated(facts) ? ` animada (${facts.frames} fotogramas)` : ""}`,
      `${facts.width} × ${facts.height} píxeles`,
      colours && `principalmente en ${colours}`,
      facts.brightness && { dark: "oscura", medium: "de luminosidad media", bright: "luminosa" }[facts.brightness],
      transparencyWord(facts, { partial: "parcialmente transparente", full: "totalmente transparente" })
    ]),
  title: (facts, colours) =>
    words(["imagen", esTags.orientation[facts.orientation], isAnimated(facts) && "animada",
      fullyTransparent(facts) && "totalmente transparente", colours && `en ${colours}`]),
  size: (facts) => `${facts.width} × ${facts.height} píxeles, ${esTags.orientation[facts.orientation]}`,
  colours: (colours) =>
    colours ? `Colores dominantes: ${colours}.` : "Ningún color visible: la imagen es totalmente transparente.",
  tagged: (keywords) => `Palabras clave indicadas: ${keywords}.`,
  titleTags: (keywords) => `palabras clave: ${keywords}`,
  context: (excerpt) => `Contexto indicado: «${excerpt}».`,
  tags: esTags
}

// Brazilian forms (`cinza`, `marrom`): `pt-BR` is the most common Portuguese request.
const ptTags: Tags = {
  orientation: { landscape: "horizontal", portrait: "vertical", square: "quadrada" },
  brightness: { dark: "escura", medium: "luminosidade média", bright: "clara" },
  animated: "animada",
  transparent: "transparente"
}

const pt: Templates = {
  colour: colourNames(
    { black: "preto", white: "branco", grey: "cinza", red: "vermelho", orange: "laranja", yellow: "amarelo", green: "verde",
      teal: "turquesa", blue: "azul", purple: "roxo", pink: "rosa", brown: "marrom" },
    (name, shade) => `${name}-${shade === "dark" ? "escuro" : "claro"}`
  ),
  and: "e",
  summary: (facts, colours) =>
    sentence([
      `uma imagem ${ptTags.orientation[facts.orientation]}${isAnimated(facts) ? ` animada (${facts.frames} quadros)` : ""}`,
      `${facts.width} × ${facts.height} pixels`,
      colours && `principalmente em ${colours}`,
      facts.brightness && { dark: "escura", medium: "de luminosidade média", bright: "clara" }[facts.brightness],
      transparencyWord(facts, { partial: "parcialmente transparente", full: "totalmente transparente" })
    ]),
  title: (facts, colours) =>
    words(["imagem", ptTags.orientation[facts.orientation], isAnimated(facts) && "animada",
      fullyTransparent(facts) && "totalmente transparente", colours && `em ${colours}`]),
  size: (facts) => `${facts.width} × ${facts.height} pixels, ${ptTags.orientation[facts.orientation]}`,
  colours: (colours) =>
    colours ? `Cores predominantes: ${colours}.` : "Nenhuma cor visível: a imagem é totalmente transparente.",
  tagged: (keywords) => `Palavras-chave informadas: ${keywords}.`,
  titleTags: (keywords) => `palavras-chave: ${keywords}`,
  context: (excerpt) => `Contexto informado: “${excerpt}”.`,
  tags: ptTags
}

const itTags: Tags = {
  orientation: { landscape: "orizzontale", portrait: "verticale", square: "quadrata" },
  brightness: { dark: "scura", medium: "luminosità media", bright: "luminosa" },
  animated: "animata",
  transparent: "trasparente"
}

const it: Templates = {
  colour: colourNames(
    { black: "nero", white: "bianco", grey: "grigio", red: "rosso", orange: "arancione", yellow: "giallo", green: "verde",
      teal: "turchese", blue: "blu", purple: "viola", pink: "rosa", brown: "marrone" },
    (name, shade) => `${name} ${shade === "dark" ? "scuro" : "chiaro"}`
  ),
  and: "e",
  summary: (facts, colours) =>
    sentence([
      `un’immagine ${itTags.orientation[facts.orientation]}${isAnimated(facts) ? ` animata (${facts.frames} fotogrammi)` : ""}`,
      `${facts.width} × ${facts.height} pixel`,
      colours && `prevalentemente in ${colours}`,
      facts.brightness && { dark: "scura", medium: "di luminosità media", bright: "luminosa" }[facts.brightness],
      transparencyWord(facts, { partial: "parzialmente trasparente", full: "completamente trasparente" })
    ]),
  title: (facts, colours) =>
    words(["immagine", itTags.orientation[facts.orientation], isAnimated(facts) && "animata",
      fullyTransparent(facts) && "completamente trasparente", colours && `in ${colours}`]),
  size: (facts) => `${facts.width} × ${facts.height} pixel, ${itTags.orientation[facts.orientation]}`,
  colours: (colours) =>
    colours ? `Colori prevalenti: ${colours}.` : "Nessun colore visibile: l’immagine è completamente trasparente.",
  tagged: (keywords) => `Parole chiave indicate: ${keywords}.`,
  titleTags: (keywords) => `parole chiave: ${keywords}`,
  context: (excerpt) => `Contesto indicato: «${excerpt}».`,
  tags: itTags
}

const nlOrientation = { landscape: "liggende", portrait: "staande", square: "vierkante" } as const
const nlTags: Tags = {
  orientation: { landscape: "liggend", portrait: "staand", square: "vierkant" },
  brightness: { dark: "donker", medium: "gemiddelde helderheid", bright: "licht" },
  animated: "geanimeerd",
  transparent: "transparant"
}

const nl: Templates = {
  // Shades as compounds: `donkerblauw`, `lichtgrijs`.
  colour: colourNames(
    { black: "zwart", white: "wit", grey: "grijs", red: "rood", orange: "oranje", yellow: "geel", green: "groen",
      teal: "turquoise", blue: "blauw", purple: "paars", pink: "roze", brown: "bruin" },
    (name, shade) => `${shade === "dark" ? "donker" : "licht"}${name}`
  ),
  and: "en",
  summary: (facts, colours) =>
    sentence([
      isAnimated(facts)
        ? `een geanimeerde ${nlOrientation[facts.orientation]} afbeelding (${facts.frames} frames)`
        : `een ${nlOrientation[facts.orientation]} afbeelding`,
      `${facts.width} × ${facts.height} pixels`,
      colours && `overwegend ${colours}`,
      facts.brightness && { dark: "donker", medium: "met gemiddelde helderheid", bright: "licht" }[facts.brightness],
      transparencyWord(facts, { partial: "gedeeltelijk transparant", full: "volledig transparant" })
    ]),
  title: (facts, colours) =>
    words([fullyTransparent(facts) && "volledig transparante", isAnimated(facts) && "geanimeerde",
      nlOrientation[facts.orientation], "afbeelding", colours && `in ${colours}`]),
  size: (facts) => `${facts.width} × ${facts.height} pixels, ${nlTags.orientation[facts.orientation]}`,
  colours: (colours) =>
    colours ? `Overheersende kleuren: ${colours}.` : "Geen zichtbare kleur: de afbeelding is volledig transparant.",
  tagged: (keywords) => `Opgegeven trefwoorden: ${keywords}.`,
  titleTags: (keywords) => `trefwoorden: ${keywords}`,
  context: (excerpt) => `Opgegeven context: “${excerpt}”.`,
  tags: nlTags
}

export const templates: Readonly<Record<OfflineLanguage, Templates>> = { en, fr, de, es, pt, it, nl }
