/** The offline describer's English wording (the table's rules: offlineTemplates.ts). */
import {
  colourNames, formatName, fullyTransparent, isAnimated, sentence,
  transparencyWord, words, type Tags, type Templates
} from "../offlineWording.ts"

const enTags: Tags = {
  orientation: { wide: "wide", tall: "tall", square: "square" },
  brightness: { dark: "dark", medium: "medium brightness", bright: "bright" },
  animated: "animated",
  transparent: "transparent",
  animation: (frames) => (frames > 1 ? `animated (${frames} frames)` : "not animated"),
  transparency: { opaque: "opaque", partial: "partly transparent", full: "fully transparent" }
}
const enBrightness = { dark: "dark", medium: "of medium brightness", bright: "bright" } as const

export const en: Templates = {
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
