import { Layer } from "effect"
import { ServicesLive } from "../../src/app.ts"
import type { Backend } from "./database.ts"

/** The real services over a test backend. */
export const servicesOn = (backend: Backend) => ServicesLive.pipe(Layer.provideMerge(backend.layer))
