/**
 * Images given by URL (README, "Images by URL"): fetched for the describe use case at the image
 * step (§4.1 check 6). Only http and https, at most 3 redirects, every hop's address resolved
 * and checked (checkedAddress.ts) before it is connected to, one deadline for all the hops
 * and the body (`IMAGE_URL_TIMEOUT_MS`), at most 10 MB (imageUrlGet.ts).
 *
 * The image is held from the upload budget (UploadBudget.ts) from before its body is read until it
 * is prepared (imageUrlGet.ts): without it, one account's 60 fetches at once took the process from
 * 0.2 to 1.8 GB. A wait for the budget counts in the fetch's deadline.
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type ImageFetcherSettings, ImageUrlConfig } from "../config/ImageUrlConfig.ts"
import { ImageTooLarge, ImageUrlFetchFailed, ImageUrlRefused } from "../domain/errors.ts"
import { hasCredentials, parseHttpUrl } from "../domain/httpUrl.ts"
import type { AllowList } from "../domain/publicAddress.ts"
import { checkedAddresses, onEachAddress } from "./checkedAddress.ts"
import { connectionFailed, getHop, type Take } from "./imageUrlGet.ts"

export type { ImageFetcherSettings }

export interface ImageFetcherShape {
  /** The image at `url`, its length held with `take` before its body is read. */
  readonly fetch: (url: string, take: Take) => Effect.Effect<Uint8Array, ImageUrlRefused | ImageUrlFetchFailed | ImageTooLarge>
}

const maxRedirects = 3

const credentialsInUrl = "its URL holds a user name or password, which are never sent"
const credentialsInRedirect = "it redirects to a URL with a user name or password, which are never sent"

/**
 * `text` as an http or https URL, or the refusal; `base` is the hop that redirected to it. A user
 * name or password is refused, not sent (domain/httpUrl.ts): Node's client would send them as Basic
 * authorization, a relative redirect's included.
 */
const httpUrl = (text: string, base?: URL): Effect.Effect<URL, ImageUrlRefused | ImageUrlFetchFailed> => {
  const url = parseHttpUrl(text, base)
  return url === null
    ? Effect.fail(new ImageUrlRefused({ reason: "not an http or https URL" }))
    : hasCredentials(url)
    ? Effect.fail(new ImageUrlFetchFailed({ reason: base === undefined ? credentialsInUrl : credentialsInRedirect }))
    : Effect.succeed(url)
}

const fetchFrom = (allow: AllowList, url: URL, take: Take, redirectsLeft: number): Effect.Effect<Uint8Array, ImageUrlRefused | ImageUrlFetchFailed | ImageTooLarge> =>
  Effect.gen(function* () {
    const addresses = yield* checkedAddresses(allow, url).pipe(Effect.catchTags({
      AddressRefused: ({ reason }) => new ImageUrlRefused({ reason }),
      HostUnresolved: () => new ImageUrlFetchFailed({ reason: "its host name did not resolve" })
    }))
    const answer = yield* onEachAddress(
      addresses,
      (address) => getHop(url, address, take),
      (error) => error._tag === "ImageUrlFetchFailed" && error.reason === connectionFailed
    )
    if (answer._tag === "image") return answer.bytes
    if (redirectsLeft === 0) return yield* new ImageUrlFetchFailed({ reason: `more than ${maxRedirects} redirects` })
    return yield* fetchFrom(allow, yield* httpUrl(answer.location, url), take, redirectsLeft - 1)
  })

export const fetchImage = (settings: ImageFetcherSettings, text: string, take: Take) =>
  Effect.flatMap(httpUrl(text), (url) => fetchFrom(settings.allow, url, take, maxRedirects)).pipe(
    Effect.timeoutFail({
      duration: settings.timeout,
      onTimeout: () =>
        new ImageUrlFetchFailed({ reason: `no complete answer within ${Duration.toMillis(settings.timeout) / 1000} s` })
    }),
    Effect.withSpan("describe.fetchImage")
  )

const make = (settings: ImageFetcherSettings): ImageFetcherShape => ({ fetch: (url, take) => fetchImage(settings, url, take) })

/**
 * A reference: its default reads the settings (config/ImageUrlConfig.ts) as it fetches, so every
 * layer of services can describe by URL; the application provides `layer`, from the settings read at start-up.
 */
export class ImageFetcher extends Context.Reference<ImageFetcher>()("ImageFetcher", {
  defaultValue: (): ImageFetcherShape => ({
    fetch: (url, take) => Effect.flatMap(Effect.orDie(ImageUrlConfig.config), (settings) => fetchImage(settings, url, take))
  })
}) {
  static readonly make = make
  static readonly layer = Layer.effect(ImageFetcher, Effect.map(ImageUrlConfig, make))
}
