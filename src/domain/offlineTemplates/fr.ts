/** The offline describer's French wording (the table's rules: offlineTemplates.ts). */
import {
  colourNames, formatName, fullyTransparent, isAnimated, sentence,
  transparencyWord, words, type Tags, type Templates
} from "../offlineWording.ts"

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

export const fr: Templates = {
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
