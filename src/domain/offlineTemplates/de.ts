/** The offline describer's German wording (the table's rules: offlineTemplates.ts). */
import {
  colourNames, formatName, fullyTransparent, isAnimated, sentence,
  transparencyWord, words, type Tags, type Templates
} from "../offlineWording.ts"

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

export const de: Templates = {
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
