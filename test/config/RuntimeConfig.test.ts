/**
 * The runtime settings (README, "Runtime settings"): what Bun reads as the process starts. `npm
 * start` and the Docker image give each the same default, and the start-up summary names each.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as fs from "node:fs"
import { runtimeConfig, runtimeSummary } from "../../src/config/RuntimeConfig.ts"
import { startDefaultsOf } from "../../scripts/startDefaults.ts"

const root = new URL("../../", import.meta.url)
const startScript: string = JSON.parse(fs.readFileSync(new URL("package.json", root), "utf8")).scripts.start
const dockerfile = fs.readFileSync(new URL("Dockerfile", root), "utf8")

const startDefaults = startDefaultsOf(startScript)

/** `NAME=value` in the image's ENV instruction. */
const imageDefaults = Object.fromEntries(
  [...dockerfile.matchAll(/^\s*(?:ENV\s+)?([A-Za-z_]\w*)=(\S+?)\s*\\?$/gm)].map(([, name, value]) => [name, value])
)

const summaryOf = (variables: Record<string, string>) =>
  Effect.map(Effect.withConfigProvider(runtimeConfig, ConfigProvider.fromMap(new Map(Object.entries(variables)))), runtimeSummary)

describe("runtime settings", () => {
  it.effect("npm start and the Docker image set every one the summary names, to the same value", () =>
    Effect.gen(function* () {
      const names = Object.keys(yield* summaryOf({}))
      expect(names).toEqual(["UV_THREADPOOL_SIZE", "BUN_CONFIG_MAX_HTTP_REQUESTS", "BUN_JSC_forceRAMSize", "MIMALLOC_PURGE_DELAY"])
      const expected = { UV_THREADPOOL_SIZE: "4", BUN_CONFIG_MAX_HTTP_REQUESTS: "2048", BUN_JSC_forceRAMSize: "536870912", MIMALLOC_PURGE_DELAY: "1000" }
      expect(Object.fromEntries(names.map((name) => [name, startDefaults[name]]))).toEqual(expected)
      expect(Object.fromEntries(names.map((name) => [name, imageDefaults[name]]))).toEqual(expected)
    }))

  it.effect("the summary shows each as set, or says the runtime's default applies", () =>
    Effect.gen(function* () {
      expect((yield* summaryOf({ MIMALLOC_PURGE_DELAY: "1000" })).MIMALLOC_PURGE_DELAY).toBe("1000")
      expect((yield* summaryOf({})).MIMALLOC_PURGE_DELAY).toBe("unset: the allocator gives freed memory back to the system after 100 ms")
    }))
})
