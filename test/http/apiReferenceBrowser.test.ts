/**
 * The API reference in Debian's Chromium: axe-core finds nothing at desktop and phone widths, the
 * dashboard's style sheet loads under its Content-Security-Policy with nothing refused, and the
 * page is no wider than a phone's screen (its code and tables scroll in their own boxes).
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { axeViolations, browserContext, chromiumMissing, screenshot, step } from "../support/browser.ts"
import { baseUrl } from "../support/dashboard.ts"
import { pglite } from "../support/database.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)

layer(serverWith(servicesOn(pglite)).pipe(Layer.provide(quiet)), { excludeTestServices: true })("the API reference in Chromium", (it) => {
  it.scoped.skipIf(chromiumMissing)("passes axe-core, styled, at desktop and phone widths", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const context = yield* browserContext(base)
      const page = yield* step(() => context.newPage())
      const refused: Array<string> = []
      // Chromium reports what the Content-Security-Policy blocks as "Refused to ..." errors.
      page.on("console", (message) => {
        if (message.type() === "error" && message.text().startsWith("Refused")) refused.push(message.text())
      })
      for (const [width, height, name] of [[1280, 900, "api-docs-desktop"], [360, 780, "api-docs-phone"]] as const) {
        yield* step(() => page.setViewportSize({ width, height }))
        yield* step(() => page.goto(`${base}/api/docs`))
        expect(yield* step(() => page.getByRole("heading", { level: 1 }).textContent())).toBe("Image metadata API reference")
        // The dashboard's sheet applied: `main` is centred in at most 60rem.
        expect(yield* step(() => page.evaluate<string>("getComputedStyle(document.querySelector('main')).maxWidth"))).toBe("960px")
        const overflow = yield* step(() => page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth"))
        expect({ name, overflow, violations: yield* axeViolations(page) }).toEqual({ name, overflow: 0, violations: [] })
        yield* screenshot(page, name)
      }
      // The operations' links lead to their sections.
      yield* step(() => page.getByRole("navigation", { name: "Operations" }).getByRole("link", { name: "GET /api/tokens" }).click())
      expect(page.url()).toBe(`${base}/api/docs#checkKey`)
      expect(refused).toEqual([])
    }), 120_000)
})
