/**
 * Every setting of the service (README "Configuration"), grouped by section, read once at start-up
 * through Effect `Config` in `layer`, which gives each service its section's tag; `summary` is the
 * one start-up line that shows them all, secrets redacted.
 *
 * A new setting: add it to its section's `config` (or a new section's file here and to `settings`),
 * and to that section's summary; test/config/Settings.test.ts fails until it is in the summary.
 */
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig, databaseSummary, serverSummary, uploadsSummary } from "./AppConfig.ts"
import { BatchConfig, batchSummary } from "./BatchConfig.ts"
import { DashboardConfig, dashboardSummary } from "./DashboardConfig.ts"
import { ImageUrlConfig, imageUrlSummary } from "./ImageUrlConfig.ts"
import { MailConfig, mailSummary } from "./MailConfig.ts"
import { DescriberConfig, ModelConfig, modelSettings, modelSummary } from "./ModelConfig.ts"
import { ObservabilityConfig, observabilitySummary } from "./ObservabilityConfig.ts"
import { runtimeConfig, runtimeSummary } from "./RuntimeConfig.ts"
import { WebhookConfig, webhookSummary } from "./WebhookConfig.ts"

/** The definition: one `Config` for all the sections. */
export const settings = Config.all({
  app: AppConfig.config,
  model: modelSettings,
  imageUrls: ImageUrlConfig.config,
  dashboard: DashboardConfig.config,
  mail: MailConfig.config,
  observability: ObservabilityConfig.config,
  webhooks: WebhookConfig.config,
  batches: BatchConfig.config,
  runtime: runtimeConfig
})

export type SettingsShape = Config.Config.Success<typeof settings>

/** All the settings, for the start-up summary; services take their own section's tag. */
export class Settings extends Context.Tag("Settings")<Settings, SettingsShape>() {}

/** Every section's tag, from the settings read once; a bad value stops the start, naming it. */
export const layer = Layer.effectContext(
  Effect.map(settings, (read) =>
    Context.make(Settings, read).pipe(
      Context.add(AppConfig, read.app),
      Context.add(DescriberConfig, read.model.describer),
      Context.add(ModelConfig, read.model.model),
      Context.add(ImageUrlConfig, read.imageUrls),
      Context.add(DashboardConfig, read.dashboard),
      Context.add(MailConfig, read.mail),
      Context.add(ObservabilityConfig, read.observability),
      Context.add(WebhookConfig, read.webhooks),
      Context.add(BatchConfig, read.batches)
    ))
)

export type SettingsTags = Layer.Layer.Success<typeof layer>

/** The settings from `variables` alone, nothing from the process (tests; unset entries left out). */
export const fromVariables = (variables: Readonly<Record<string, string | undefined>>) =>
  // Fresh: a layer is built once per reference, so two sets of variables in one build would share the first.
  Layer.fresh(layer).pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(
    new Map(Object.entries(variables).flatMap(([name, value]) => (value === undefined ? [] : [[name, value] as const])))
  ))))

/** The effective configuration, by section and variable: no secret, no password in a URL. */
export const summary = (read: SettingsShape) => ({
  server: serverSummary(read.app),
  database: databaseSummary(read.app),
  uploads: uploadsSummary(read.app),
  model: modelSummary(read.model.describer, read.model.model),
  imageUrls: imageUrlSummary(read.imageUrls),
  dashboard: dashboardSummary(read.dashboard),
  mail: mailSummary(read.mail, read.app.publicUrl),
  observability: observabilitySummary(read.observability),
  webhooks: webhookSummary(read.webhooks),
  batches: batchSummary(read.batches),
  runtime: runtimeSummary(read.runtime)
})

/** The one start-up line: every setting, and the describer chosen from them. */
export const logSummary = (describer: string) =>
  Effect.flatMap(Settings, (read) => Effect.logInfo("configuration").pipe(Effect.annotateLogs({ ...summary(read), describer })))
