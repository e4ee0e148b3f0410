/**
 * The offline describer's wording, one table per language of `offlineLanguage.ts`. Each table says
 * only what `ImageFacts` measured, so no language can claim to see objects or scenes. Shapes are
 * the plain words for wide, tall and square, never the print terms (landscape, paysage,
 * Querformat...) that a reader takes for scenery. Sentences are built so colour names need no
 * agreement (`en bleu et blanc`, German nouns `in Dunkelblau`): one name per colour fits everywhere.
 */
import type { OfflineLanguage } from "./offlineLanguage.ts"
import { colourNames, formatName, isAnimated, sentence, type Tags, type Templates, transparencyWord, words } from "./offlineWording.ts"
import type { ImageFacts } from "./imageFacts.ts"

const fullyTransparent = (facts: ImageFacts): boolean => facts.transparency === "full"

const enTags: Tags = {
  orientation: { wide: "wide", tall: "tall", square: "square" },
  brightness: { dark: "dark", medium: "medium brightness", bright: "bright" },
  animated: "animated",
  transparent: "transparent",
  animation: (frames) => (frames > 1 ? `animated (${frames} frames)` : "not animated"),
  transparency: { opaque: "opaque", partial: "partly transparent", full: "fully transparent" }
}
const enBrightness = { dark: "dark", medium: "of medium brightness", bright: "bright" } as const

const en: Templates = {
  colour: colourNames(
    { black: "black", white: "white", grey: "grey", red: "red", orange: "orange", yellow: "yellow", green: "green",
      teal: "teal", blue: "blue", purple: "purple", pink: "pink", brown: "brown" },
    (name, shade) => `${shade} ${name}`
  ),
  and: "and",
  title: (facts, colours) =>
    words([fullyTransparent(facts) && "fully transparent", isAnimated(facts) && "animated", enTags.orientation[facts.orientation], colours,
      "image"]),
  alternativeText: (facts, colours) =>
    sentence([
      `${isAnimated(facts) ? "an animated" : "a"} ${enTags.orientation[facts.orientation]} image`,
      colours && `mostly ${colours}`,
      facts.brightness && enBrightness[facts.brightness],
      transparencyWord(facts, enTags.transparency)
    ]),
  caption: (facts, colours) =>
    sentence([
      isAnimated(facts) ? `${formatName[facts.format]} animation of ${facts.frames} frames` : `${formatName[facts.format]} image`,
      enTags.orientation[facts.orientation],
      colours && `in ${colours}`,
      facts.brightness && enBrightness[facts.brightness],
      transparencyWord(facts, enTags.transparency)
    ]),
  pixels: (count) => `${count} pixels`,
  tags: enTags
}

const frShape = { wide: "horizontale", tall: "verticale", square: "carrée" } as const
const frBrightness = { dark: "sombre", medium: "de luminosité moyenne", bright: "lumineuse" } as const
const frTags: Tags = {
  orientation: { wide: "horizontal", tall: "vertical", square: "carré" },
  brightness: { dark: "sombre", medium: "luminosité moyenne", bright: "lumineux" },
  animated: "animé",
  transparent: "transparent",
  animation: (frames) => (frames > 1 ? `animée (${frames} images)` : "non animée"),
  transparency: { opaque: "opaque", partial: "partiellement transparente", full: "entièrement transparente" }
}

const fr: Templates = {
  colour: colourNames(
    { black: "noir", white: "blanc", grey: "gris", red: "rouge", orange: "orange", yellow: "jaune", green: "vert",
      teal: "bleu-vert", blue: "bleu", purple: "violet", pink: "rose", brown: "marron" },
    (name, shade) => `${name} ${shade === "dark" ? "foncé" : "clair"}`
  ),
  and: "et",
  title: (facts, colours) =>
    words(["image", isAnimated(facts) && "animée", frShape[facts.orientation],
      fullyTransparent(facts) && "entièrement transparente", colours && `en ${colours}`]),
  alternativeText: (facts, colours) =>
    sentence([
      `une image${isAnimated(facts) ? " animée" : ""} ${frShape[facts.orientation]}`,
      colours && `principalement en ${colours}`,
      facts.brightness && frBrightness[facts.brightness],
      transparencyWord(facts, frTags.transparency)
    ]),
  caption: (facts, colours) =>
    sentence([
      isAnimated(facts) ? `animation ${formatName[facts.format]} de ${facts.frames} images` : `image ${formatName[facts.format]}`,
      frShape[facts.orientation],
      colours && `en ${colours}`,
      facts.brightness && frBrightness[facts.brightness],
      transparencyWord(facts, frTags.transparency)
    ]),
  pixels: (count) => `${count} pixels`,
  tags: frTags
}

/** Attributive, after `ein` (neuter): `ein breites Bild`. */
const deShape = { wide: "breites", tall: "hohes", square: "quadratisches" } as const
const deTags: Tags = {
  orientation: { wide: "breit", tall: "hoch", square: "quadratisch" },
  brightness: { dark: "dunkel", medium: "mittelhell", bright: "hell" },
  animated: "animiert",
  transparent: "transparent",
  animation: (frames) => (frames > 1 ? `animiert (${frames} Einzelbilder)` : "nicht animiert"),
  transparency: { opaque: "undurchsichtig", partial: "teilweise transparent", full: "vollständig transparent" }
}

const de: Templates = {
  // Nouns, capitalised; shades as compounds: `Dunkelblau`, `Hellgrau`.
  colour: colourNames(
    { black: "Schwarz", white: "Weiß", grey: "Grau", red: "Rot", orange: "Orange", yellow: "Gelb", green: "Grün",
      teal: "Türkis", blue: "Blau", purple: "Lila", pink: "Rosa", brown: "Braun" },
    (name, shade) => `${shade === "dark" ? "Dunkel" : "Hell"}${name.toLowerCase()}`
  ),
  and: "und",
  title: (facts, colours) =>
    words([fullyTransparent(facts) && "vollständig transparentes", isAnimated(facts) && "animiertes",
      deShape[facts.orientation], "Bild", colours && `in ${colours}`]),
  alternativeText: (facts, colours) =>
    sentence([
      `ein ${isAnimated(facts) ? "animiertes " : ""}${deShape[facts.orientation]} Bild`,
      colours && `überwiegend in ${colours}`,
      facts.brightness && deTags.brightness[facts.brightness],
      transparencyWord(facts, deTags.transparency)
    ]),
  caption: (facts, colours) =>
    sentence([
      isAnimated(facts)
        ? `${formatName[facts.format]}-Animation mit ${facts.frames} Einzelbildern`
        : `${formatName[facts.format]}-Bild`,
      deTags.orientation[facts.orientation],
      colours && `in ${colours}`,
      facts.brightness && deTags.brightness[facts.brightness],
      transparencyWord(facts, deTags.transparency)
    ]),
  pixels: (count) => `${count} Pixel`,
  tags: deTags
}

const esBrightness = { dark: "oscura", medium: "de luminosidad media", bright: "luminosa" } as const
const esTags: Tags = {
  orientation: { wide: "horizontal", tall: "vertical", square: "cuadrada" },
  brightness: { dark: "oscura", medium: "luminosidad media", bright: "luminosa" },
  animated: "animada",
  transparent: "transparente",
  animation: (frames) => (frames > 1 ? `animada (${frames} fotogramas)` : "no animada"),
  transparency: { opaque: "opaca", partial: "parcialmente transparente", full: "totalmente transparente" }
}

const es: Templates = {
  colour: colourNames(
    { black: "negro", white: "blanco", grey: "gris", red: "rojo", orange: "naranja", yellow: "amarillo", green: "verde",
      teal: "turquesa", blue: "azul", purple: "morado", pink: "rosa", brown: "marrón" },
    (name, shade) => `${name} ${shade === "dark" ? "oscuro" : "claro"}`
  ),
  and: "y",
  title: (facts, colours) =>
    words(["imagen", esTags.orientation[facts.orientation], isAnimated(facts) && "animada",
      fullyTransparent(facts) && "totalmente transparente", colours && `en ${colours}`]),
  alternativeText: (facts, colours) =>
    sentence([
      `una imagen ${esTags.orientation[facts.orientation]}${isAnimated(facts) ? " animada" : ""}`,
      colours && `principalmente en ${colours}`,
      facts.brightness && esBrightness[facts.brightness],
      transparencyWord(facts, esTags.transparency)
    ]),
  caption: (facts, colours) =>
    sentence([
      isAnimated(facts)
        ? `animación ${formatName[facts.format]} de ${facts.frames} fotogramas`
        : `imagen ${formatName[facts.format]}`,
      esTags.orientation[facts.orientation],
      colours && `en ${colours}`,
      facts.brightness && esBrightness[facts.brightness],
      transparencyWord(facts, esTags.transparency)
    ]),
  pixels: (count) => `${count} píxeles`,
  tags: esTags
}

// Brazilian forms (`cinza`, `marrom`): `pt-BR` is the most common Portuguese request.
const ptBrightness = { dark: "escura", medium: "de luminosidade média", bright: "clara" } as const
const ptTags: Tags = {
  orientation: { wide: "horizontal", tall: "vertical", square: "quadrada" },
  brightness: { dark: "escura", medium: "luminosidade média", bright: "clara" },
  animated: "animada",
  transparent: "transparente",
  animation: (frames) => (frames > 1 ? `animada (${frames} quadros)` : "não animada"),
  transparency: { opaque: "opaca", partial: "parcialmente transparente", full: "totalmente transparente" }
}

const pt: Templates = {
  colour: colourNames(
    { black: "preto", white: "branco", grey: "cinza", red: "vermelho", orange: "laranja", yellow: "amarelo", green: "verde",
      teal: "turquesa", blue: "azul", purple: "roxo", pink: "rosa", brown: "marrom" },
    (name, shade) => `${name}-${shade === "dark" ? "escuro" : "claro"}`
  ),
  and: "e",
  title: (facts, colours) =>
    words(["imagem", ptTags.orientation[facts.orientation], isAnimated(facts) && "animada",
      fullyTransparent(facts) && "totalmente transparente", colours && `em ${colours}`]),
  alternativeText: (facts, colours) =>
    sentence([
      `uma imagem ${ptTags.orientation[facts.orientation]}${isAnimated(facts) ? " animada" : ""}`,
      colours && `principalmente em ${colours}`,
      facts.brightness && ptBrightness[facts.brightness],
      transparencyWord(facts, ptTags.transparency)
    ]),
  caption: (facts, colours) =>
    sentence([
      isAnimated(facts) ? `animação ${formatName[facts.format]} de ${facts.frames} quadros` : `imagem ${formatName[facts.format]}`,
      ptTags.orientation[facts.orientation],
      colours && `em ${colours}`,
      facts.brightness && ptBrightness[facts.brightness],
      transparencyWord(facts, ptTags.transparency)
    ]),
  pixels: (count) => `${count} pixels`,
  tags: ptTags
}

const itBrightness = { dark: "scura", medium: "di luminosità media", bright: "luminosa" } as const
const itTags: Tags = {
  orientation: { wide: "orizzontale", tall: "verticale", square: "quadrata" },
  brightness: { dark: "scura", medium: "luminosità media", bright: "luminosa" },
  animated: "animata",
  transparent: "trasparente",
  animation: (frames) => (frames > 1 ? `animata (${frames} fotogrammi)` : "non animata"),
  transparency: { opaque: "opaca", partial: "parzialmente trasparente", full: "completamente trasparente" }
}

const it: Templates = {
  colour: colourNames(
    { black: "nero", white: "bianco", grey: "grigio", red: "rosso", orange: "arancione", yellow: "giallo", green: "verde",
      teal: "turchese", blue: "blu", purple: "viola", pink: "rosa", brown: "marrone" },
    (name, shade) => `${name} ${shade === "dark" ? "scuro" : "chiaro"}`
  ),
  and: "e",
  title: (facts, colours) =>
    words(["immagine", itTags.orientation[facts.orientation], isAnimated(facts) && "animata",
      fullyTransparent(facts) && "completamente trasparente", colours && `in ${colours}`]),
  alternativeText: (facts, colours) =>
    sentence([
      `un’immagine ${itTags.orientation[facts.orientation]}${isAnimated(facts) ? " animata" : ""}`,
      colours && `prevalentemente in ${colours}`,
      facts.brightness && itBrightness[facts.brightness],
      transparencyWord(facts, itTags.transparency)
    ]),
  caption: (facts, colours) =>
    sentence([
      isAnimated(facts)
        ? `animazione ${formatName[facts.format]} di ${facts.frames} fotogrammi`
        : `immagine ${formatName[facts.format]}`,
      itTags.orientation[facts.orientation],
      colours && `in ${colours}`,
      facts.brightness && itBrightness[facts.brightness],
      transparencyWord(facts, itTags.transparency)
    ]),
  pixels: (count) => `${count} pixel`,
  tags: itTags
}

/** Attributive (`een brede afbeelding`); the tags are the predicative forms. */
const nlShape = { wide: "brede", tall: "hoge", square: "vierkante" } as const
const nlBrightness = { dark: "donker", medium: "met gemiddelde helderheid", bright: "licht" } as const
const nlTags: Tags = {
  orientation: { wide: "breed", tall: "hoog", square: "vierkant" },
  brightness: { dark: "donker", medium: "gemiddelde helderheid", bright: "licht" },
  animated: "geanimeerd",
  transparent: "transparant",
  animation: (frames) => (frames > 1 ? `geanimeerd (${frames} frames)` : "niet geanimeerd"),
  transparency: { opaque: "ondoorzichtig", partial: "gedeeltelijk transparant", full: "volledig transparant" }
}

const nl: Templates = {
  // Shades as compounds: `donkerblauw`, `lichtgrijs`.
  colour: colourNames(
    { black: "zwart", white: "wit", grey: "grijs", red: "rood", orange: "oranje", yellow: "geel", green: "groen",
      teal: "turquoise", blue: "blauw", purple: "paars", pink: "roze", brown: "bruin" },
    (name, shade) => `${shade === "dark" ? "donker" : "licht"}${name}`
  ),
  and: "en",
  title: (facts, colours) =>
    words([fullyTransparent(facts) && "volledig transparante", isAnimated(facts) && "geanimeerde",
      nlShape[facts.orientation], "afbeelding", colours && `in ${colours}`]),
  alternativeText: (facts, colours) =>
    sentence([
      `een ${isAnimated(facts) ? "geanimeerde " : ""}${nlShape[facts.orientation]} afbeelding`,
      colours && `overwegend ${colours}`,
      facts.brightness && nlBrightness[facts.brightness],
      transparencyWord(facts, nlTags.transparency)
    ]),
  caption: (facts, colours) =>
    sentence([
      isAnimated(facts)
        ? `${formatName[facts.format]}-animatie van ${facts.frames} frames`
        : `${formatName[facts.format]}-afbeelding`,
      nlTags.orientation[facts.orientation],
      colours && `in ${colours}`,
      facts.brightness && nlBrightness[facts.brightness],
      transparencyWord(facts, nlTags.transparency)
    ]),
  pixels: (count) => `${count} pixels`,
  tags: nlTags
}

export const templates: Readonly<Record<OfflineLanguage, Templates>> = { en, fr, de, es, pt, it, nl }
