/** The offline describer's Spanish wording (the table's rules: offlineTemplates.ts). */
import {
  colourNames, formatName, fullyTransparent, isAnimated, sentence,
  transparencyWord, words, type Tags, type Templates
} from "../offlineWording.ts"

const esBrightness = { dark: "oscura", medium: "de luminosidad media", bright: "luminosa" } as const
const esTags: Tags = {
  orientation: { wide: "horizontal", tall: "vertical", square: "cuadrada" },
  brightness: { dark: "oscura", medium: "luminosidad media", bright: "luminosa" },
  animated: "animada",
  transparent: "transparente",
  animation: (frames) => (frames > 1 ? `animada (${frames} fotogramas)` : "no animada"),
  transparency: { opaque: "opaca", partial: "parcialmente transparente", full: "totalmente transparente" }
}

export const es: Templates = {
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
