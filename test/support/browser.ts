/**
 * Debian's Chromium driven by Playwright, for the dashboard's browser tests: headless, loopback
 * only, a fresh profile removed afterwards, closed with the test's scope whatever happens.
 * Every page the tests visit can be checked with axe-core and photographed.
 */
import axe from "axe-core"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { chromium } from "playwright-core"
import type { BrowserContext, Page } from "playwright-core"

export const chromiumPath = "/usr/bin/chromium"

export const chromiumMissing = !fs.existsSync(chromiumPath)

/** Not committed (`.artifacts/` is ignored): one PNG per page, to look at. */
export const screenshotDir = path.join(import.meta.dirname, "../../.artifacts/dashboard")

const args = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync"
]

/** A browser with a profile of its own; the clipboard is allowed for `origin` (the copy button). */
export const browserContext = (origin: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const profile = await fsp.mkdtemp(path.join(os.tmpdir(), "dashboard-chromium-"))
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: chromiumPath,
        headless: true,
        args,
        viewport: { width: 1280, height: 900 },
        timeout: 30_000
      })
      context.setDefaultTimeout(15_000)
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin })
      return { context, profile }
    }),
    ({ context, profile }) =>
      Effect.promise(async () => {
        await context.close()
        await fsp.rm(profile, { recursive: true, force: true })
      })
  ).pipe(Effect.map(({ context }): BrowserContext => context))

export interface AxeViolation {
  readonly id: string
  readonly impact: string | null | undefined
  readonly nodes: ReadonlyArray<string>
}

/**
 * axe-core's violations on the page as it is now (all WCAG 2 A and AA rules and best practices),
 * reduced to rule, impact and the offending elements, so a failure reads in a few lines.
 */
export const axeViolations = (page: Page) =>
  Effect.promise(async (): Promise<ReadonlyArray<AxeViolation>> => {
    await page.evaluate(axe.source)
    const results = await page.evaluate(() => (globalThis as unknown as { axe: typeof axe }).axe.run())
    return results.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.html.slice(0, 200)) }))
  })

export const screenshot = (page: Page, name: string) =>
  Effect.promise(async () => {
    await fsp.mkdir(screenshotDir, { recursive: true })
    await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true })
  })

/** One Playwright step, as an effect; a failure (e.g. an element never found) fails the test. */
export const step = <A>(run: () => Promise<A>) => Effect.promise(run)
