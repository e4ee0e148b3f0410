/**
 * The dashboard in a real browser (README, Dashboard): Debian's Chromium through Playwright
 * signs up, creates a key and copies it, deletes it, tries an image, and logs out, and uses an
 * operator's password-reset link and the change-password form, reads its usage over periods and
 * keys and exports it; axe-core finds no violation on any page, no page is wider than a 390 px
 * phone, and each page is photographed into `.artifacts/dashboard/`.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel, Schema } from "effect"
import * as fsp from "node:fs/promises"
import type { Page } from "playwright-core"
import { runCommand } from "../../src/cli/commands.ts"
import { Accounts } from "../../src/services/Accounts.ts"
import { axeViolations, browserContext, chromiumMissing, screenshot, step } from "../support/browser.ts"
import { pglite } from "../support/database.ts"
import { accountOf, baseUrl, grant, password } from "../support/dashboard.ts"
import { formData, jpeg } from "../support/describe.ts"
import { getTokens, serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"
import { usageRow } from "../support/usage.ts"
import { AccountId } from "../../src/domain/ids.ts"

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

/** How much wider than the screen the page is: 0 when nothing sticks out. */
const overflow = (page: Page) => step(() => page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth"))

const balanceOf = (accountId: string) =>
  Effect.flatMap(Accounts, (accounts) => accounts.find(AccountId.make(accountId))).pipe(Effect.map((account) => account.credits), Effect.orDie)

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
      yield* step(() => page.getByLabel("Image", { exact: true }).setInputFiles({ name: "red.jpg", mimeType: "image/jpeg", buffer: Buffer.from(jpeg) }))
      yield* step(() => page.getByLabel("Language (optional)").fill("fr"))
      yield* step(() => page.getByRole("button", { name: "Describe image" }).click())
      yield* step(() => page.getByRole("heading", { name: "Result" }).waitFor())
      expect(yield* step(() => page.evaluate<string>("document.activeElement.id"))).toBe("outcome-title")
      expect(yield* step(() => page.getByLabel("Result as JSON").textContent())).toContain("\"alt_text\"")
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

  it.scoped.skipIf(chromiumMissing)("usage over periods and keys, its export, keys as cards and no overflow on a phone", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const context = yield* browserContext(base)
      const page = yield* step(() => context.newPage())
      const failures: Array<string> = []
      page.on("response", (response) => {
        if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`)
      })
      page.on("console", (message) => {
        if (message.type() === "error") failures.push(message.text())
      })
      yield* step(() => page.goto(`${base}/dashboard/signup`))
      yield* step(() => page.getByLabel("Account name").fill("Usage shop"))
      yield* step(() => page.getByLabel("E-mail address").fill("usage@example.com"))
      yield* step(() => page.getByLabel("Password").fill(password))
      yield* step(() => page.getByRole("button", { name: "Create account" }).click())
      yield* step(() => page.waitForURL(`${base}/dashboard?done=welcome`))
      const accountId = yield* accountOf("usage@example.com")
      yield* grant(accountId, 5)
      // A key with a long name, used once today through the API; older requests from the database.
      yield* step(() => navigateTo(page, "API keys"))
      yield* step(() => page.getByLabel("Name (optional)").fill("Production server for the online shop"))
      yield* step(() => page.getByRole("button", { name: "Create key" }).click())
      const token = yield* step(() => page.getByLabel("New API key", { exact: true }).inputValue())
      const described = yield* step(() => fetch(`${base}/api/describe`, {
        method: "POST", body: formData({ image: jpeg }), headers: { authorization: `Bearer ${token}`, "x-request-id": "browser-req-1" }
      }))
      expect(described.status).toBe(200)
      yield* usageRow({ accountId, keyId: null, daysAgo: 20, status: 400, errorKind: "ImageTooLarge", requestId: "old-req" })
      yield* usageRow({ accountId, keyId: null, daysAgo: 60, status: 500, errorKind: "GenerationFailed", requestId: null })

      // Desktop: the default 30 days, then 7, then 90; a filter on the key; the export of what is shown.
      yield* step(() => navigateTo(page, "Usage"))
      expect(yield* step(() => page.locator("#per-day-summary").textContent())).toMatch(/^2 requests: 1 succeeded, 1 failed/)
      yield* checkPage(page, "21-usage-30-days")
      yield* step(() => page.getByRole("navigation", { name: "Period" }).getByRole("link", { name: "7 days" }).click())
      yield* step(() => page.waitForURL(`${base}/dashboard/usage?range=7`))
      expect(yield* step(() => page.locator("#per-day-summary").textContent())).toMatch(/^1 request: 1 succeeded, 0 failed/)
      yield* step(() => page.getByRole("navigation", { name: "Period" }).getByRole("link", { name: "90 days" }).click())
      expect(yield* step(() => page.locator("#per-day-summary").textContent())).toMatch(/^3 requests: 1 succeeded, 2 failed/)
      // The chart's numbers as a table, behind a disclosure.
      yield* step(() => page.getByText("Requests per day as a table").click())
      expect(yield* step(() => page.locator("#per-day tbody tr").count())).toBe(3)
      expect(yield* step(() => page.locator("#latest").textContent())).toContain("browser-req-1")
      yield* checkPage(page, "22-usage-90-days")
      yield* step(() => page.getByLabel("Key", { exact: true }).selectOption({ label: "Production server for the online shop" }))
      yield* step(() => page.getByRole("button", { name: "Show" }).click())
      expect(yield* step(() => page.locator("#per-day-summary").textContent())).toMatch(/^1 request: 1 succeeded/)
      const [download] = yield* step(() => Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download these requests (CSV)" }).click()]))
      expect(download.suggestedFilename()).toMatch(/^usage-\d{4}-\d\d-\d\d-90d\.csv$/)
      const csv = yield* step(async () => (await fsp.readFile(await download.path())).toString("utf8"))
      expect(csv.split("\r\n").map((line) => line.replace(/^[^,]*,[^,]*,/, ""))).toEqual([
        "key_name,status,error_kind,error,credits_used,request_id", "Production server for the online shop,200,,,1,browser-req-1", ""
      ])

      // A phone (390 px): every page fits; the keys are cards with Status and Delete on screen.
      yield* step(() => page.setViewportSize({ width: 390, height: 844 }))
      const pages = [
        ["/dashboard", "23-phone-overview"], ["/dashboard/keys", "24-phone-keys-cards"], ["/dashboard/usage?range=90", "25-phone-usage"],
        ["/dashboard/try", "26-phone-try"], ["/dashboard/password", "27-phone-password"]
      ] as const
      for (const [path, name] of pages) {
        yield* step(() => page.goto(`${base}${path}`))
        expect([path, yield* overflow(page)]).toEqual([path, 0])
        yield* checkPage(page, name)
      }
      yield* step(() => page.goto(`${base}/dashboard/keys`))
      const right = (locator: ReturnType<Page["locator"]>) => step(async () => {
        const box = await locator.boundingBox()
        return box === null ? Infinity : box.x + box.width
      })
      expect(yield* right(page.getByRole("link", { name: "Delete key Production server for the online shop" }))).toBeLessThanOrEqual(390)
      expect(yield* right(page.locator("#keys .status"))).toBeLessThanOrEqual(390)
      expect(yield* step(() => page.evaluate<string>("getComputedStyle(document.querySelector('#keys td[data-label=Status]'), '::before').content"))).toBe("\"Status\"")
      // On a desktop the same list is a table again.
      yield* step(() => page.setViewportSize({ width: 1280, height: 900 }))
      expect(yield* step(() => page.evaluate<string>("getComputedStyle(document.querySelector('#keys td')).display"))).toBe("table-cell")
      yield* checkPage(page, "28-keys-desktop")

      // The favicon is served (and cached), and the API reference is one click away.
      const iconHref = yield* step(() => page.locator("link[rel=icon]").getAttribute("href"))
      const icon = yield* step(() => page.request.get(`${base}${iconHref}`))
      expect([icon.status(), icon.headers()["content-type"], icon.headers()["cache-control"]]).toEqual([200, "image/svg+xml", "public, max-age=3600"])
      yield* step(() => navigateTo(page, "API reference"))
      expect(page.url()).toBe(`${base}/api/docs`)
      expect(failures).toEqual([])
    }), 120_000)

  it.scoped.skipIf(chromiumMissing)("Try it keeps its inputs after an error and a success, with request id and credits left, at desktop and phone widths", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const context = yield* browserContext(base)
      const page = yield* step(() => context.newPage())
      yield* step(() => page.goto(`${base}/dashboard/signup`))
      yield* step(() => page.getByLabel("Account name").fill("Trying shop"))
      yield* step(() => page.getByLabel("E-mail address").fill("trying@example.com"))
      yield* step(() => page.getByLabel("Password").fill(password))
      yield* step(() => page.getByRole("button", { name: "Create account" }).click())
      yield* step(() => page.waitForURL(`${base}/dashboard?done=welcome`))
      yield* grant(yield* accountOf("trying@example.com"), 4)
      const typed = { "Language (optional)": "fr", "Keywords (optional)": `beach, "sunset"`, "Context (optional)": "Tom's <towel>", "Schema (optional)": `{"seoTitle":"A title"}` }
      const inputsKept = Effect.forEach(Object.entries(typed), ([label, value]) =>
        Effect.map(step(() => page.getByLabel(label).inputValue()), (shown) => expect([label, shown]).toEqual([label, value])))
      for (const [width, creditsLeft] of [[1280, "3 credits"], [390, "2 credits"]] as const) {
        yield* step(() => page.setViewportSize({ width, height: 900 }))
        yield* step(() => page.goto(`${base}/dashboard/try`))
        // Not an image: refused, every text field still filled in.
        yield* step(() => page.getByLabel("Image").setInputFiles({ name: "notes.jpg", mimeType: "image/jpeg", buffer: Buffer.from("not an image") }))
        for (const [label, value] of Object.entries(typed)) yield* step(() => page.getByLabel(label).fill(value))
        yield* step(() => page.getByRole("button", { name: "Describe image" }).click())
        yield* step(() => page.getByRole("heading", { name: "The image was not described" }).waitFor())
        yield* inputsKept
        expect(yield* step(() => page.locator("#try-status").textContent())).toBe("400")
        expect(yield* step(() => page.locator("#try-request-id").textContent())).toMatch(/^[0-9a-f-]{36}$/)
        // A real image, previewed before it is sent: described, still filled in, one credit less.
        yield* step(() => page.getByLabel("Image", { exact: true }).setInputFiles({ name: "red.jpg", mimeType: "image/jpeg", buffer: Buffer.from(jpeg) }))
        expect(yield* step(() => page.evaluate<boolean>("(() => { const img = document.getElementById('try-preview'); return !img.hidden && img.src.startsWith('blob:') })()"))).toBe(true)
        yield* step(() => page.getByRole("button", { name: "Describe image" }).click())
        yield* step(() => page.getByRole("heading", { name: "Result" }).waitFor())
        yield* inputsKept
        expect(yield* step(() => page.locator("#try-status").textContent())).toBe("200")
        expect(yield* step(() => page.locator("#try-request-id").textContent())).toMatch(/^[0-9a-f-]{36}$/)
        expect(yield* step(() => page.locator("#try-credits-left").textContent())).toBe(creditsLeft)
        expect(yield* step(() => page.locator("#try-curl").textContent())).toContain(`--form-string 'context=Tom'\\''s <towel>'`)
        expect(yield* overflow(page)).toBe(0)
        yield* checkPage(page, `try-${width}`)
      }
    }), 120_000)

  it.scoped.skipIf(chromiumMissing)("every page, logged out and in, at 1280 and 390 px: no axe-core violation, nothing wider than the screen, a screenshot", () =>
    Effect.gen(function* () {
      const base = yield* baseUrl
      const context = yield* browserContext(base)
      const page = yield* step(() => context.newPage())
      const widths = [1280, 390] as const
      /** Each page at each width, named page-width. */
      const everyWidth = (name: string, open: Effect.Effect<unknown>) =>
        Effect.forEach(widths, (width) =>
          Effect.gen(function* () {
            yield* step(() => page.setViewportSize({ width, height: 900 }))
            yield* open
            expect([name, width, yield* overflow(page)]).toEqual([name, width, 0])
            yield* checkPage(page, `${name}-${width}`)
          }), { discard: true })
      const visit = (path: string) => step(() => page.goto(`${base}${path}`))
      yield* everyWidth("signup", visit("/dashboard/signup"))
      yield* step(() => page.getByLabel("Account name").fill("Every page shop"))
      yield* step(() => page.getByLabel("E-mail address").fill("every@example.com"))
      yield* step(() => page.getByLabel("Password").fill(password))
      yield* step(() => page.getByRole("button", { name: "Create account" }).click())
      yield* step(() => page.waitForURL(`${base}/dashboard?done=welcome`))
      for (const [name, path] of [["overview", "/dashboard"], ["keys", "/dashboard/keys"], ["usage", "/dashboard/usage"], ["batches", "/dashboard/batches"], ["webhooks", "/dashboard/webhooks"], ["try", "/dashboard/try"], ["password", "/dashboard/password"], ["api-docs", "/api/docs"]] as const) {
        yield* everyWidth(name, visit(path))
      }
      yield* everyWidth("key-created", Effect.gen(function* () {
        yield* visit("/dashboard/keys")
        yield* step(() => page.getByRole("button", { name: "Create key" }).click())
        yield* step(() => page.getByLabel("New API key", { exact: true }).waitFor())
      }))
      const { url } = yield* runCommand({ _tag: "UserResetLink", email: "every@example.com" }).pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Struct({ url: Schema.String }))),
        Effect.orDie
      )
      yield* visit("/dashboard")
      yield* step(() => page.getByRole("button", { name: "Log out" }).click())
      yield* step(() => page.getByText("You have logged out.").waitFor())
      yield* everyWidth("login", visit("/dashboard/login"))
      yield* everyWidth("forgot-password", visit("/dashboard/forgot-password"))
      yield* everyWidth("reset-password", visit(`${new URL(url).pathname}${new URL(url).search}`))
    }), 180_000)
})
