import { Layer } from "effect"
import { ServicesLive } from "../../src/app.ts"
import { Describer } from "../../src/services/Describer.ts"
import { Images } from "../../src/services/Images.ts"
import { UploadBudget } from "../../src/services/UploadBudget.ts"
import type { Backend } from "./database.ts"

/** The real services (and real image preparation) over a test backend, with a fake model. */
export const servicesOn = (backend: Backend, describer: Layer.Layer<Describer> = Describer.echo) =>
  Layer.mergeAll(ServicesLive, Images.layer, UploadBudget.layer, describer).pipe(Layer.provideMerge(backend.layer))
