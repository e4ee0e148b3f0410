/** The offline describer's Dutch wording (the table's rules: offlineTemplates.ts). */
import {
  colourNames, formatName, fullyTransparent, isAnimated, sentence,
  transparencyWord, words, type Tags, type Templates
} from "../offlineWording.ts"

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

export const nl: Templates = {
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
