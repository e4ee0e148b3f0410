/**
 * Settings of images given by URL (README, "Images by URL"), read with every other section
 * (Settings.ts); services/ImageFetcher.ts uses them.
 */
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import { type AllowList, parseAllowList } from "../domain/publicAddress.ts"
import { millisSetting } from "./rules.ts"

export interface ImageFetcherSettings {
  /** Hosts and ranges reachable beyond public addresses (`IMAGE_URL_ALLOW`). */
  readonly allow: AllowList
  /** For the whole fetch: every connection, redirect and byte (`IMAGE_URL_TIMEOUT_MS`). */
  readonly timeout: Duration.Duration
}

export class ImageUrlConfig extends Context.Tag("ImageUrlConfig")<ImageUrlConfig, ImageFetcherSettings & {
  /** `IMAGE_URL_ALLOW` as given, for the start-up summary. */
  readonly allowText: string
}>() {
  static readonly config = Config.string("IMAGE_URL_ALLOW").pipe(
    Config.withDefault(""),
    Config.mapOrFail((text) => {
      const { allow, invalid } = parseAllowList(text)
      return invalid.length === 0
        ? Either.right({ allow, allowText: text })
        : Either.left(ConfigError.InvalidData(["IMAGE_URL_ALLOW"], `not a host name, address or CIDR range: ${invalid.join(", ")}`))
    }),
    Config.zipWith(
      millisSetting("IMAGE_URL_TIMEOUT_MS", 10_000),
      (allow, timeout) => ({ ...allow, timeout })
    )
  )
}

/** The image URLs' part of the start-up summary, by variable. */
export const imageUrlSummary = (config: Context.Tag.Service<ImageUrlConfig>) => ({
  IMAGE_URL_ALLOW: config.allowText.trim() === "" ? "unset: public addresses only" : config.allowText,
  IMAGE_URL_TIMEOUT_MS: Duration.toMillis(config.timeout)
})
