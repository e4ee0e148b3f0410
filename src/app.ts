/** The one place the application is composed: configuration, database, services, server. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { logSummary } from "./config/Settings.ts"
import * as Database from "./db/Database.ts"
import { ServerLive } from "./http/server.ts"
import { Accounts } from "./services/Accounts.ts"
import { AccountWebhooks } from "./services/AccountWebhooks.ts"
import { Batches } from "./services/Batches.ts"
import { BatchWorkersLive } from "./services/BatchWorkers.ts"
import { ApiKeys } from "./services/ApiKeys.ts"
import { Credits } from "./services/Credits.ts"
import { Describer } from "./services/Describer.ts"
import * as DescriberLive from "./services/DescriberLive.ts"
import { Idempotency } from "./services/Idempotency.ts"
import { ImageFetcher } from "./services/ImageFetcher.ts"
import { Images } from "./services/Images.ts"
import { Instance } from "./services/Instance.ts"
import { KeyFlash } from "./services/KeyFlash.ts"
import { Mailer } from "./services/Mailer.ts"
import { Sessions } from "./services/Sessions.ts"
import { UploadBudget } from "./services/UploadBudget.ts"
import { UsageReport } from "./services/UsageReport.ts"
import { Users } from "./services/Users.ts"
import { WebhookDelivery } from "./services/WebhookDelivery.ts"
import { Webhooks } from "./services/Webhooks.ts"

/**
 * The services over a database client and the given webhooks (tests record them with
 * `Webhooks.recording`); their settings come from config/Settings.ts.
 */
export const servicesWith = <E, R>(webhooks: Layer.Layer<Webhooks, E, R>) => Layer.mergeAll(
  Accounts.Default, ApiKeys.Default, Users.Default, Sessions.Default, UsageReport.Default, KeyFlash.Default, Mailer.layer,
  Idempotency.Default, AccountWebhooks.Default, Batches.Default
).pipe(
  // Sign-ups grant `SIGNUP_CREDITS`.
  Layer.provideMerge(Credits.Default),
  Layer.provideMerge(Instance.layer),
  Layer.provideMerge(webhooks)
)

/** The services over a database client (the CLI uses these alone). */
export const ServicesLive = servicesWith(Webhooks.layer)

/**
 * Start-up work, done before the server listens: give back the credits held by requests of
 * processes that are gone (a crash, a killed replica), so a restarted service never answers `no
 * credit left` for credits it still holds. Then sweep again every minute, for replicas that die
 * while this one runs.
 */
const StartUp = Layer.scopedDiscard(
  Effect.gen(function* () {
    const credits = yield* Credits
    const sweep = credits.releaseAbandoned.pipe(
      Effect.tap((released) =>
        released > 0 ? Effect.logWarning("released credits held by requests of a stopped process").pipe(Effect.annotateLogs({ released })) : Effect.void
      ),
      // A database outage must not end the sweeping; the next round tries again.
      Effect.catchAllCause((cause) => Effect.logWarning("could not release abandoned reservations", cause))
    )
    // Expired `Idempotency-Key` entries already count as absent; the sweep only frees their rows.
    const idempotency = yield* Idempotency
    const sweepKeys = idempotency.sweep.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("could not sweep expired idempotency keys", cause))
    )
    yield* sweep
    yield* Effect.forkScoped(Effect.forever(Effect.delay(Effect.zipRight(sweep, sweepKeys), "1 minute")))
  })
)

export const AppLive = ServerLive.pipe(
  Layer.provide(StartUp),
  // Webhook events queued by any replica are delivered by this one's worker too.
  Layer.provide(WebhookDelivery.live),
  // Batch items run beside requests, on the same services (README, "Batches").
  Layer.provide(BatchWorkersLive),
  Layer.provide(Layer.mergeAll(ServicesLive, Images.layer, UploadBudget.layer, ImageFetcher.layer)),
  Layer.provide(Database.layer),
  // The describer first: a production start without a model is refused before the database opens.
  // Then the configuration and describer, in one line, before the database: a start that cannot
  // reach it has printed what it tried.
  Layer.provide(DescriberLive.layer.pipe(Layer.tap((context) => logSummary(Context.get(context, Describer).name))))
)
