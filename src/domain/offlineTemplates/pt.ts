/** The offline describer's Portuguese wording (the table's rules: offlineTemplates.ts). */
import {
  colourNames, formatName, fullyTransparent, isAnimated, sentence,
  transparencyWord, words, type Tags, type Templates
} from "../offlineWording.ts"

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

export const pt: Templates = {
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
