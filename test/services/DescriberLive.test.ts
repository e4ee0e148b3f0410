import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Either, Exit, Layer, Option } from "effect"
import { Describer } from "../../src/services/Describer.ts"
import * as DescriberLive from "../../src/services/DescriberLive.ts"
import type { Env } from "../support/fakeOpenAi.ts"
import { testSettings } from "../support/config.ts"

const { chooseDescriber } = DescriberLive

describe("chooseDescriber", () => {
  const choose = (requested: DescriberLive.DescriberChoice | undefined, modelConfigured: boolean, production: boolean) =>
    chooseDescriber({ requested: Option.fromNullable(requested), modelConfigured, production })

  it("a configured model wins unless DESCRIBER says otherwise", () => {
    expect(choose(undefined, true, true)).toStrictEqual(Either.right("openai-compatible"))
    expect(choose(undefined, true, false)).toStrictEqual(Either.right("openai-compatible"))
    expect(choose("offline", true, true)).toStrictEqual(Either.right("offline"))
  })

  it("without a model: offline outside production, refused in production unless DESCRIBER=offline", () => {
    expect(choose(undefined, false, false)).toStrictEqual(Either.right("offline"))
    expect(choose(undefined, false, true)).toStrictEqual(Either.left(DescriberLive.noModelInProduction))
    expect(choose("offline", false, true)).toStrictEqual(Either.right("offline"))
  })

  it("DESCRIBER=openai-compatible without a model is refused everywhere", () => {
    expect(choose("openai-compatible", false, false)).toStrictEqual(Either.left(DescriberLive.modelNotConfigured))
  })

  it("every refusal names both variables", () => {
    for (const message of [DescriberLive.noModelInProduction, DescriberLive.modelNotConfigured]) {
      expect(message).toContain("OPENAI_API_KEY")
      expect(message).toContain("OPENAI_BASE_URL")
    }
  })
})

describe("DescriberLive.layer", () => {
  const kindWith = (env: Env) =>
    Effect.provide(Effect.map(Describer, (describer) => describer.kind), DescriberLive.layer.pipe(Layer.provide(testSettings(env))))

  it.effect("reads NODE_ENV and DESCRIBER", () =>
    Effect.gen(function* () {
      expect(yield* kindWith({})).toBe("offline")
      expect(yield* kindWith({ NODE_ENV: "development", DESCRIBER: "" })).toBe("offline")
      expect(yield* kindWith({ NODE_ENV: "production", DESCRIBER: "offline" })).toBe("offline")
      expect(yield* kindWith({ NODE_ENV: "production", OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" })).toBe("openai-compatible")
      expect(yield* kindWith({ OPENAI_API_KEY: "sk-test", DESCRIBER: "offline" })).toBe("offline")
    }))

  it.effect("fails to build in production without a model, and for a DESCRIBER it does not know", () =>
    Effect.gen(function* () {
      const refused = yield* Effect.exit(kindWith({ NODE_ENV: "production", OPENAI_API_KEY: " " }))
      expect(Exit.isFailure(refused) && Cause.pretty(refused.cause)).toContain(DescriberLive.noModelInProduction)
      expect(Exit.isFailure(yield* Effect.exit(kindWith({ DESCRIBER: "fake" })))).toBe(true)
    }))

  it.effect("takes NODE_ENV=production in any case and with spaces around", () =>
    Effect.gen(function* () {
      for (const NODE_ENV of ["Production", "PRODUCTION", " production "]) {
        const refused = yield* Effect.exit(kindWith({ NODE_ENV }))
        expect(Exit.isFailure(refused) && Cause.pretty(refused.cause)).toContain(DescriberLive.noModelInProduction)
        expect(yield* kindWith({ NODE_ENV, DESCRIBER: "offline" })).toBe("offline")
      }
    }))
})
