import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { fromVariables, Settings, summary } from "../../src/config/Settings.ts"

/** The settings from `variables` alone (no test defaults: these tests are about the real ones), and their summary. */
const configFrom = (variables: Record<string, string>) =>
  Effect.provide(Effect.map(Settings, (read) => ({ ...read.app, summary: summary(read) })), fromVariables(variables)).pipe(Effect.either)

describe("AppConfig", () => {
  it.effect("UPLOAD_MEMORY_MB: 64 MiB of request bodies by default, in bytes, and printed at start-up", () =>
    Effect.gen(function* () {
      const config = Either.getOrThrow(yield* configFrom({}))
      expect(config.uploadMemory).toBe(64 * 1024 * 1024)
      expect(config.summary.uploads.UPLOAD_MEMORY_MB).toBe(64)
      expect(Either.getOrThrow(yield* configFrom({ UPLOAD_MEMORY_MB: "512" })).uploadMemory).toBe(512 * 1024 * 1024)
    }))

  it.effect("UPLOAD_MEMORY_MB below one largest body (11 MB, spec §8) is refused at start-up", () =>
    Effect.gen(function* () {
      const refused = yield* configFrom({ UPLOAD_MEMORY_MB: "10" })
      expect(Either.isLeft(refused) && String(refused.left)).toContain("UPLOAD_MEMORY_MB must be at least 11")
      expect(Either.isRight(yield* configFrom({ UPLOAD_MEMORY_MB: "11" }))).toBe(true)
    }))

  it.effect("TRUSTED_PROXIES: none by default, a count of hops when set, never negative; printed at start-up", () =>
    Effect.gen(function* () {
      const config = Either.getOrThrow(yield* configFrom({}))
      expect([config.trustedProxies, config.summary.server.TRUSTED_PROXIES]).toEqual([0, 0])
      expect(Either.getOrThrow(yield* configFrom({ TRUSTED_PROXIES: "2" })).trustedProxies).toBe(2)
      const refused = yield* configFrom({ TRUSTED_PROXIES: "-1" })
      expect(Either.isLeft(refused) && String(refused.left)).toContain("TRUSTED_PROXIES must be 0 or more")
    }))

  it.effect("API_KEY_SECRET shorter than 32 bytes is refused at start-up; 32 bytes or unset is accepted", () =>
    Effect.gen(function* () {
      const refused = yield* configFrom({ API_KEY_SECRET: "x".repeat(31) })
      expect(Either.isLeft(refused) && String(refused.left)).toContain("API_KEY_SECRET must be at least 32 bytes")
      expect(Either.isLeft(refused) && String(refused.left)).not.toContain("x".repeat(31))
      // Bytes, not characters: 16 two-byte characters are enough.
      expect(Either.isRight(yield* configFrom({ API_KEY_SECRET: "é".repeat(16) }))).toBe(true)
      expect(Either.isRight(yield* configFrom({ API_KEY_SECRET: "x".repeat(32) }))).toBe(true)
      expect(Either.isRight(yield* configFrom({}))).toBe(true)
    }))

  it.effect("PUBLIC_URL: http://localhost:PORT by default, without a trailing slash; printed at start-up; whether it was set", () =>
    Effect.gen(function* () {
      const config = Either.getOrThrow(yield* configFrom({}))
      expect([config.publicUrl, config.summary.server.PUBLIC_URL, config.publicUrlSet])
        .toEqual(["http://localhost:3000", "unset: http://localhost:3000 (links in e-mails and on the key page point there)", false])
      const set = Either.getOrThrow(yield* configFrom({ PUBLIC_URL: "https://images.example.com" }))
      expect([set.publicUrlSet, set.summary.server.PUBLIC_URL]).toEqual([true, "https://images.example.com"])
      expect(Either.getOrThrow(yield* configFrom({ PORT: "8080" })).publicUrl).toBe("http://localhost:8080")
      expect(Either.getOrThrow(yield* configFrom({ PUBLIC_URL: "https://images.example.com/" })).publicUrl)
        .toBe("https://images.example.com")
    }))
})
