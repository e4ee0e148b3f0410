/**
 * The dashboard in a real browser (issue 5, "Done when"): Debian's Chromium through Playwright
 * signs up, creates a key and copies it, deletes it, tries an image, and logs out, and uses an
 * operator's password-reset link and the change-password form; axe-core finds
 * no violation on any page, and each page is photographed into `.artifacts/dashboard/`.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel, Schema } from "effect"
import type { Page } from "playwright-core"
import { runCommand } from "../../src/cli/commands.ts"
import { Accounts } from "../../src/services/Accounts.ts"
import { axeViolations, browserContext, chromiumMissing, screenshot, step } from "../support/browser.ts"
import { pglite } from "../support/database.ts"
import { accountOf, baseUrl, grant, password } from "../support/dashboard.ts"
import { jpeg } from "../support/describe.ts"
import { getTokens, serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)

/** Every page the tests see: no axe-core violation, and a screenshot to look at. */
const checkPage = (page: Page, name: string) =>
  Effect.gen(function* () {
    expect({ page: name, violations: yield* axeViolations(page) }).toEqual({ page: name, violations: [] })
    yield* screenshot(page, name)
  })

/** Follows a link of the dashboard's navigation, as a person does. */
const navigateTo = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name, exact: true }).click()

const balanceOf = (accountId: string) =>
  Effect.flatMap(Accounts, (accounts) => accounts.find(accountId)).pipe(Effect.map((account) => account.credits), Effect.orDie)

layer(serverWith(servicesOn(pglite)).pipe(Layer.provide(quiet)), { excludeTestServices: true })("the dashboard in Chromium", (it) => {
  it.scoped.skipIf(chromiumMissing)("sign up, create and copy a key, delete it, try an image, log out", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const context = yield* browserContext(base)
      const page = yield* step(() => context.newPage())

      // Sign up.
      yield* step(() => page.goto(`${base}/dashboard/signup`))
      yield* checkPage(page, "01-signup")
      yield* step(() => page.getByLabel("Account name").fill("Ada's <b>shop</b>"))
      yield* step(() => page.getByLabel("E-mail address").fill("ada@example.com"))
      yield* step(() => page.getByLabel("Password").fill(password))
      yield* step(() => page.getByRole("button", { name: "Create account" }).click())
      yield* step(() => page.waitForURL(`${base}/dashboard?done=welcome`))
      expect(yield* step(() => page.getByRole("heading", { level: 1 }).textContent())).toBe("Overview")
      // An operator grants credits (`credits add`).
      const accountId = yield* accountOf("ada@example.com")
      yield* grant(accountId, 3)
      yield* step(() => page.reload())
      expect(yield* step(() => page.locator(".balance").textContent())).toBe("3 credits")
      yield* checkPage(page, "02-overview")

      // Create a key, and copy it with the button.
      yield* step(() => navigateTo(page, "API keys"))
      yield* checkPage(page, "03-keys-empty")
      yield* step(() => page.getByLabel("Name (optional)").fill("Playwright"))
      yield* step(() => page.getByLabel("In 90 days").check())
      yield* step(() => page.getByRole("button", { name: "Create key" }).click())
      // The page opens on the new key, for the keyboard and the screen reader alike.
      expect(yield* step(() => page.evaluate<string>("document.activeElement.id"))).toBe("new-key-title")
      const shown = yield* step(() => page.getByLabel("New API key", { exact: true }).inputValue())
      yield* step(() => page.getByRole("button", { name: "Copy key" }).click())
      yield* step(() => page.getByText("Key copied to the clipboard.").waitFor())
      const copied = yield* step(() => page.evaluate<string>("navigator.clipboard.readText()"))
      expect(copied).toBe(shown)
      yield* checkPage(page, "04-keys-created")
      // Ready-to-paste requests carry the key; a reload shows it no more and makes no second key.
      expect(shown).toMatch(/^imd_/)
      for (const snippet of ["#snippet-curl", "#snippet-node", "#snippet-python"]) {
        expect(yield* step(() => page.locator(snippet).textContent())).toContain(shown)
      }
      yield* step(() => page.reload())
      expect(yield* step(() => page.getByLabel("New API key", { exact: true }).count())).toBe(0)
      expect(yield* step(() => page.locator("#keys tbody tr").count())).toBe(1)
      expect(yield* step(() => page.locator("#keys").textContent())).toContain(`imd_…${shown.slice(-4)}`)

      // The copied key works on the API, from the test (a server), not from the page.
      const status = yield* getTokens(copied)
      expect([status.status, (status.body as { token: { name: string } }).token.name]).toEqual([200, "Playwright"])

      // Delete it after the confirmation: revoked at once.
      yield* step(() => page.goto(`${base}/dashboard/keys`))
      yield* step(() => page.getByRole("link", { name: "Delete key Playwright" }).click())
      yield* checkPage(page, "05-key-delete")
      yield* step(() => page.getByRole("button", { name: "Delete key" }).click())
      yield* step(() => page.getByText("The key is deleted").waitFor())
      expect(yield* getTokens(copied)).toEqual({ status: 401, contentType: "application/json", body: { error: "Unauthorized, invalid token" } })
      yield* checkPage(page, "06-keys-deleted")

      // Try an image: one credit, through the session.
      yield* step(() => navigateTo(page, "Try it"))
      yield* checkPage(page, "07-try")
      yield* step(() => page.getByLabel("Image").setInputFiles({ name: "red.jpg", mimeType: "image/jpeg", buffer: Buffer.from(jpeg) }))
      yield* step(() => page.getByLabel("Language (optional)").fill("fr"))
      yield* step(() => page.getByRole("button", { name: "Describe image" }).click())
      yield* step(() => page.getByRole("heading", { name: "Result" }).waitFor())
      expect(yield* step(() => page.evaluate<string>("document.activeElement.id"))).toBe("outcome-title")
      expect(yield* step(() => page.locator("pre").textContent())).toContain("\"alt_text\"")
      expect(yield* step(() => page.locator("#try-balance").textContent())).toBe("2 credits")
      expect(yield* balanceOf(accountId)).toBe(2)
      yield* checkPage(page, "08-try-result")

      yield* step(() => navigateTo(page, "Usage"))
      expect(yield* step(() => page.locator("#latest").textContent())).toContain("Try it (dashboard)")
      yield* checkPage(page, "09-usage")

      // Log out: back to the log-in page, and the dashboard is closed.
      yield* step(() => page.getByRole("button", { name: "Log out" }).click())
      yield* step(() => page.getByText("You have logged out.").waitFor())
      yield* checkPage(page, "10-login")
      yield* step(() => page.goto(`${base}/dashboard/keys`))
      expect(page.url()).toBe(`${base}/dashboard/login`)
    }), 120_000)

  it.scoped.skipIf(chromiumMissing)("with the keyboard alone, and on a phone-sized screen", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const context = yield* browserContext(base)
      const page = yield* step(() => context.newPage())
      yield* step(() => page.goto(`${base}/dashboard/login`))
      // The first Tab reaches the skip link; following it moves focus to the main content.
      yield* step(() => page.keyboard.press("Tab"))
      expect(yield* step(() => page.evaluate<string>("document.activeElement.textContent"))).toBe("Skip to main content")
      yield* step(() => page.keyboard.press("Enter"))
      expect(yield* step(() => page.evaluate<string>("document.activeElement.id"))).toBe("main")
      // A refused log-in: the page opens on what went wrong, which links to the field to fix.
      yield* step(() => page.getByLabel("E-mail address").fill("nobody@example.com"))
      yield* step(() => page.getByLabel("Password").fill("not the password"))
      yield* step(() => page.keyboard.press("Enter"))
      yield* step(() => page.getByRole("alert").waitFor())
      expect(yield* step(() => page.evaluate<string>("document.activeElement.id"))).toBe("error-summary-title")
      yield* checkPage(page, "14-login-refused")
      // Sign up by keyboard: Tab between fields, Enter submits.
      yield* step(() => page.goto(`${base}/dashboard/signup`))
      yield* step(() => page.getByLabel("Account name").focus())
      yield* step(() => page.keyboard.type("Keyboard shop"))
      yield* step(() => page.keyboard.press("Tab"))
      yield* step(() => page.keyboard.type("keys@example.com"))
      yield* step(() => page.keyboard.press("Tab"))
      yield* step(() => page.keyboard.type(password))
      yield* step(() => page.keyboard.press("Enter"))
      yield* step(() => page.waitForURL(`${base}/dashboard?done=welcome`))
      // A key form with a date in the past: refused, with the message at the date field.
      yield* step(() => page.goto(`${base}/dashboard/keys`))
      yield* step(() => page.getByLabel("On a date").check())
      yield* step(() => page.getByLabel("Date (the key works through that day, UTC)").fill("2001-01-01"))
      yield* step(() => page.getByRole("button", { name: "Create key" }).click())
      yield* step(() => page.getByRole("alert").waitFor())
      yield* checkPage(page, "15-keys-refused")
      // A phone: nothing wider than the screen but the tables, which scroll in their own region.
      yield* step(() => page.setViewportSize({ width: 360, height: 780 }))
      for (const [path, name] of [["/dashboard", "11-phone-overview"], ["/dashboard/keys", "12-phone-keys"], ["/dashboard/usage", "13-phone-usage"]] as const) {
        yield* step(() => page.goto(`${base}${path}`))
        const overflow = yield* step(() => page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth"))
        expect([path, overflow]).toEqual([path, 0])
        yield* checkPage(page, name)
      }
      // A key made on the phone: its examples fit the screen; a reload shows it no more.
      yield* step(() => page.goto(`${base}/dashboard/keys`))
      yield* step(() => page.getByLabel("Name (optional)").fill("Phone"))
      yield* step(() => page.getByRole("button", { name: "Create key" }).click())
      const phoneKey = yield* step(() => page.getByLabel("New API key", { exact: true }).inputValue())
      expect(yield* step(() => page.locator("#snippet-python").textContent())).toContain(phoneKey)
      const wide = yield* step(() => page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth"))
      expect(wide).toBe(0)
      yield* checkPage(page, "21-phone-key-created")
      yield* step(() => page.reload())
      expect(yield* step(() => page.getByLabel("New API key", { exact: true }).count())).toBe(0)
      expect(yield* step(() => page.locator("#keys tbody tr").count())).toBe(1)
    }), 120_000)

  it.scoped.skipIf(chromiumMissing)("an operator's password-reset link, then a password change", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const context = yield* browserContext(base)
      const page = yield* step(() => context.newPage())
      yield* step(() => page.goto(`${base}/dashboard/signup`))
      yield* step(() => page.getByLabel("Account name").fill("Forgetful shop"))
      yield* step(() => page.getByLabel("E-mail address").fill("forgetful@example.com"))
      yield* step(() => page.getByLabel("Password").fill(password))
      yield* step(() => page.getByRole("button", { name: "Create account" }).click())
      yield* step(() => page.waitForURL(`${base}/dashboard?done=welcome`))
      const { url } = yield* runCommand({ _tag: "UserResetLink", email: "forgetful@example.com" }).pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Struct({ url: Schema.String }))),
        Effect.orDie
      )
      const link = `${base}${new URL(url).pathname}${new URL(url).search}`
      yield* step(() => page.goto(link))
      yield* checkPage(page, "16-reset-password")
      yield* step(() => page.getByLabel("New password").fill("short"))
      yield* step(() => page.getByRole("button", { name: "Set password and log in" }).click())
      yield* step(() => page.getByRole("alert").waitFor())
      yield* checkPage(page, "17-reset-refused")
      yield* step(() => page.getByLabel("New password").fill("a brand new passphrase"))
      yield* step(() => page.getByRole("button", { name: "Set password and log in" }).click())
      yield* step(() => page.waitForURL(`${base}/dashboard?done=password-reset`))
      yield* step(() => page.getByRole("link", { name: "Change password" }).click())
      yield* checkPage(page, "18-change-password")
      yield* step(() => page.getByLabel("Current password").fill("not the password"))
      yield* step(() => page.getByLabel("New password").fill(password))
      yield* step(() => page.getByRole("button", { name: "Change password" }).click())
      yield* step(() => page.getByRole("alert").waitFor())
      yield* checkPage(page, "19-change-refused")
      yield* step(() => page.getByLabel("Current password").fill("a brand new passphrase"))
      yield* step(() => page.getByLabel("New password").fill(password))
      yield* step(() => page.getByRole("button", { name: "Change password" }).click())
      yield* step(() => page.waitForURL(`${base}/dashboard?done=password-changed`))
      // Used: the link's page says so, and what to do.
      yield* step(() => page.goto(link))
      yield* checkPage(page, "20-reset-used")
      expect(yield* step(() => page.getByRole("heading", { level: 1 }).textContent())).toBe("This password-reset link cannot be used")
    }), 120_000)
})
