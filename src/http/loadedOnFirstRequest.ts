/**
 * An app loaded on its first request rather than at start-up, so that a service never asked for it
 * never holds its modules (the dashboard: src/http/router.ts).
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"

/**
 * `load` runs once, on the first request. Should it fail (a file missing from a deployment), the
 * cause is logged once and every request is answered `unavailable` until the service restarts:
 * Bun keeps a failed import, so loading again would fail the same way.
 */
export const loadedOnFirstRequest = <E, R>(options: {
  readonly what: string
  readonly load: () => Promise<Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>>
  readonly unavailable: HttpServerResponse.HttpServerResponse
}): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
  let loading: ReturnType<typeof options.load> | undefined
  let reported = false
  const report = (error: unknown) =>
    Effect.suspend(() => {
      if (reported) return Effect.void
      reported = true
      return Effect.logError(
        `${options.what} could not be loaded: its requests are answered ${options.unavailable.status} until the service restarts`,
        Cause.die(error)
      )
    })
  return Effect.tryPromise(() => (loading ??= options.load())).pipe(
    Effect.matchEffect({
      onFailure: (error) => Effect.as(report(error.error), options.unavailable),
      onSuccess: (app) => app
    })
  )
}
