/**
 * What Bun reads as the process starts, before any of the service's code runs (README, "Runtime
 * settings"): `npm start` and the Docker image set all four, and the start-up summary shows them
 * so that a service started another way (`bun src/main.ts`) says it runs on Bun's defaults.
 */
import * as Config from "effect/Config"
import * as Option from "effect/Option"

/** Shown only: no service reads them, the runtime already has. */
export const runtimeConfig = Config.all({
  threadPoolSize: Config.option(Config.string("UV_THREADPOOL_SIZE")),
  maxHttpRequests: Config.option(Config.string("BUN_CONFIG_MAX_HTTP_REQUESTS")),
  heapRamSize: Config.option(Config.string("BUN_JSC_forceRAMSize")),
  purgeDelay: Config.option(Config.string("MIMALLOC_PURGE_DELAY"))
})

const orDefault = (value: Option.Option<string>, bunDefault: string) => Option.getOrElse(value, () => `unset: ${bunDefault}`)

export const runtimeSummary = (config: Config.Config.Success<typeof runtimeConfig>) => ({
  UV_THREADPOOL_SIZE: orDefault(config.threadPoolSize, "4 worker threads, or fewer on fewer cores"),
  BUN_CONFIG_MAX_HTTP_REQUESTS: orDefault(config.maxHttpRequests, "256 outgoing requests at once (model calls, image URLs, webhooks)"),
  BUN_JSC_forceRAMSize: orDefault(config.heapRamSize, "the JavaScript heap grows as if all the machine's memory were the service's"),
  MIMALLOC_PURGE_DELAY: orDefault(config.purgeDelay, "the allocator gives freed memory back to the system after 100 ms")
})
