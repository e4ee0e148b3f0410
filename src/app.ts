/** The one place the application is composed: configuration, database, services, server. */
import { Layer } from "effect"
import { AppConfig, logSummary } from "./config.ts"
import * as Database from "./db/Database.ts"
import { ServerLive } from "./http/server.ts"
import { Accounts } from "./services/Accounts.ts"
import { ApiKeys } from "./services/ApiKeys.ts"
import { Credits } from "./services/Credits.ts"
import { Instance } from "./services/Instance.ts"

/** The services over a database client; tests provide their own client and configuration. */
export const ServicesLive = Layer.mergeAll(Accounts.Default, ApiKeys.Default, Credits.Default).pipe(
  Layer.provideMerge(Instance.layer)
)

export const AppLive = Layer.mergeAll(ServerLive, Layer.effectDiscard(logSummary)).pipe(
  Layer.provide(ServicesLive),
  Layer.provide(Database.layer),
  Layer.provide(AppConfig.layer)
)
