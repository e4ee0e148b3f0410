import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { defaultFields } from "../../src/domain/describe.ts"
import { Describer } from "../../src/services/Describer.ts"
import { solid } from "../domain/preparedImages.ts"

const request = { image: solid(4, 2, [1, 2, 3, 255]), fields: defaultFields, keywords: "", context: "", language: "en" }

describe("Describer.make", () => {
  it.effect("the generation is written from what the start gave it, once the start is over", () =>
    Effect.gen(function* () {
      const steps: Array<string> = []
      const describer = Describer.make("counting", {
        start: (started) => Effect.sync(() => (steps.push("start"), { bytes: started.image.pixels.byteLength })),
        generate: ({ bytes }) => Effect.sync(() => (steps.push("generate"), { title: `${bytes} bytes` }))
      })
      const generation = yield* describer.start(request)
      expect(steps).toStrictEqual(["start"])
      expect(yield* generation).toStrictEqual({ title: "32 bytes" })
      expect(steps).toStrictEqual(["start", "generate"])
    }))

  // Checked by the typecheck (`npm test` runs it): without the rule, the directive is unused, an error.
  it("refuses, at compile time, a model input that holds pixels", () => {
    const holdsPixels = () =>
      // @ts-expect-error the model input may hold no byte buffer: the pixels are released after the start
      Describer.make("holding", {
        start: (started) => Effect.succeed({ pixels: started.image.pixels }),
        generate: () => Effect.succeed({})
      })
    expect(typeof holdsPixels).toBe("function")
  })
})
