/**
 * The offline describer's wording, one table per language of `offlineLanguage.ts`. Each table says
 * only what `ImageFacts` measured, so no language can claim to see objects or scenes. Shapes are
 * the plain words for wide, tall and square, never the print terms (landscape, paysage,
 * Querformat...) that a reader takes for scenery. Sentences are built so colour names need no
 * agreement (`en bleu et blanc`, German nouns `in Dunkelblau`): one name per colour fits everywhere.
 */
import type { OfflineLanguage } from "./offlineLanguage.ts"
import type { Templates } from "./offlineWording.ts"
import { de } from "./offlineTemplates/de.ts"
import { en } from "./offlineTemplates/en.ts"
import { es } from "./offlineTemplates/es.ts"
import { fr } from "./offlineTemplates/fr.ts"
import { it } from "./offlineTemplates/it.ts"
import { nl } from "./offlineTemplates/nl.ts"
import { pt } from "./offlineTemplates/pt.ts"

export const templates: Readonly<Record<OfflineLanguage, Templates>> = { en, fr, de, es, pt, it, nl }
