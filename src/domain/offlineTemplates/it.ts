/** The offline describer's Italian wording (the table's rules: offlineTemplates.ts). */
import {
  colourNames, formatName, fullyTransparent, isAnimated, sentence,
  transparencyWord, words, type Tags, type Templates
} from "../offlineWording.ts"

const itBrightness = { dark: "scura", medium: "di luminosità media", bright: "luminosa" } as const
const itTags: Tags = {
  orientation: { wide: "orizzontale", tall: "verticale", square: "quadrata" },
  brightness: { dark: "scura", medium: "luminosità media", bright: "luminosa" },
  animated: "animata",
  transparent: "trasparente",
  animation: (frames) => (frames > 1 ? `animata (${frames} fotogrammi)` : "non animata"),
  transparency: { opaque: "opaca", partial: "parzialmente trasparente", full: "completamente trasparente" }
}

export const it: Templates = {
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
