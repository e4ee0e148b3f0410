/** The one place the application is composed: configuration, database, services, server. */
import { Effect, Layer } from "effect"
import { AppConfig, logSummary } from "./config.ts"
import * as Database from "./db/Database.ts"
import { ServerLive } from "./http/server.ts"
import { Accounts } from "./services/Accounts.ts"
import { ApiKeys } from "./services/ApiKeys.ts"
import { Credits } from "./services/Credits.ts"
import { Describer } from "./services/Describer.ts"
import * as DescriberLive from "./services/DescriberLive.ts"
import { Images } from "./services/Images.ts"
import { Instance } from "./services/Instance.ts"

/** The services over a database client (the CLI uses these alone). */
export const ServicesLive = Layer.mergeAll(Accounts.Default, ApiKeys.Default, Credits.Default).pipe(
  Layer.provideMerge(Instance.layer)
)

/** Start-up work: print the configuration and describer once; give back credits held by dead processes. */
const StartUp = Layer.effectDiscard(
  Effect.gen(function* () {
    yield* logSummary
    yield* Effect.logInfo("describer", (yield* Describer).name)
    const released = yield* Effect.flatMap(Credits, (credits) => credits.releaseAbandoned)
    if (released > 0) yield* Effect.logWarning("released credits held by requests of a stopped process", { released })
  })
)

export const AppLive = Layer.mergeAll(ServerLive, StartUp).pipe(
  Layer.provide(Layer.mergeAll(ServicesLive, Images.layer, DescriberLive.layer)),
  Layer.provide(Database.layer),
  Layer.provide(AppConfig.layer)
)
