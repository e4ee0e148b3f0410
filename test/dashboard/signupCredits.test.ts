/**
 * `SIGNUP_CREDITS` and `CREDITS_HELP` (README, Configuration): what a new account starts with, and
 * what a user without credits is told instead of a request that would be refused.
 */
import { expect, it, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Logger, LogLevel, Schema } from "effect"
import { runCommand } from "../../src/cli/commands.ts"
import { Credits } from "../../src/services/Credits.ts"
import { testSettings } from "../support/config.ts"
import { pgliteWith } from "../support/database.ts"
import { accountOf, baseUrl, csrfOf, onPage, password, signedUp, visitor } from "../support/dashboard.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"
import { AccountId } from "../../src/domain/ids.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)

const ledgerOf = (email: string) =>
  Effect.gen(function* () {
    const accountId = yield* accountOf(email)
    const entries = yield* Effect.flatMap(Credits, (credits) => credits.ledger(AccountId.make(accountId)))
    return entries.map(({ amount, reason }) => [amount, reason])
  })

layer(serverWith(servicesOn(pgliteWith({ SIGNUP_CREDITS: "25", CREDITS_HELP: "https://shop.example/credits" }))).pipe(Layer.provide(quiet)), {
  excludeTestServices: true
})("SIGNUP_CREDITS=25", (it) => {
  it.effect("a sign-up starts with 25 credits, on the ledger; the welcome says to start, the overview shows a first request", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "rich@example.com" })
      expect(yield* ledgerOf("rich@example.com")).toEqual([[25, "sign-up credits"]])
      const overview = yield* browser.get("/dashboard?done=welcome")
      onPage(overview.body, "25 credits", "Your account is ready. Create an API key to start, or try an image.", "/api/describe")
      expect(overview.body.includes("https://shop.example/credits")).toBe(false)
    }))

  it.effect("accepting an invitation adds them to what the operator granted", () =>
    Effect.gen(function* () {
      const invited = yield* runCommand({ _tag: "AccountInvite", email: "invited@example.com", name: "Invited", credits: 5 }).pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Struct({ invitation: Schema.Struct({ token: Schema.String, path: Schema.String }) }))),
        Effect.orDie
      )
      const browser = visitor(yield* baseUrl)
      const form = yield* browser.get(invited.invitation.path)
      yield* browser.post("/dashboard/invitation", { csrf: csrfOf(form.body), token: invited.invitation.token, password })
      const ledger = yield* ledgerOf("invited@example.com")
      expect(ledger.map(([amount]) => amount)).toEqual([5, 25])
      expect(ledger[1]?.[1]).toBe("sign-up credits")
      onPage((yield* browser.get("/dashboard")).body, "30 credits")
    }))
})

layer(serverWith(servicesOn(pgliteWith({ CREDITS_HELP: "https://shop.example/credits" }))).pipe(Layer.provide(quiet)), {
  excludeTestServices: true
})("SIGNUP_CREDITS unset", (it) => {
  it.effect("a sign-up starts with none: the welcome and the overview say how to get credits, with no request to try", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "broke@example.com" })
      expect(yield* ledgerOf("broke@example.com")).toEqual([])
      const overview = yield* browser.get("/dashboard?done=welcome")
      onPage(overview.body, "0 credits", "It has no credits yet: see below how to get some.",
        `To get credits: <a href="https://shop.example/credits">https://shop.example/credits</a>`)
      expect(overview.body.includes("Create an API key to start, or try an image") || overview.body.includes("/api/describe")).toBe(false)
    }))
})

it.effect("SIGNUP_CREDITS must be a whole number from 0: anything else stops the start", () =>
  Effect.gen(function* () {
    for (const value of ["-1", "ten", "1.5"]) {
      const start = testSettings({ SIGNUP_CREDITS: value })
      expect(Exit.isFailure(yield* Effect.exit(Layer.build(start).pipe(Effect.scoped)))).toBe(true)
    }
  }))
