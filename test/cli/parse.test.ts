import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseArgs, usage } from "../../src/cli/parse.ts"

const accountId = "6f1c2b1e-8f0a-4c1e-9a57-0d2d3c4b5a69"
const keyId = "0b7e4a52-3d6f-4f55-8a1c-2e9f7b6d5c43"

/** The command argv parses to; fails the test with the parser's message otherwise. */
const parsed = (argv: ReadonlyArray<string>) =>
  Either.getOrThrowWith(parseArgs(argv), (message) => new Error(`refused: ${message}`))

/** The parser's message for argv; fails the test when argv parses. */
const refused = (argv: ReadonlyArray<string>) =>
  Either.getOrThrowWith(Either.flip(parseArgs(argv)), (command) => new Error(`parsed: ${JSON.stringify(command)}`))

describe("parseArgs: every command of the usage text", () => {
  it("account create, with only the name, or with an email and credits (a number)", () => {
    expect(parsed(["account", "create", "--name", "Ada"])).toStrictEqual({ _tag: "AccountCreate", name: "Ada" })
    expect(parsed(["account", "create", "--name", "Ada Lovelace", "--email", "ada@example.com", "--credits", "25"]))
      .toStrictEqual({ _tag: "AccountCreate", name: "Ada Lovelace", email: "ada@example.com", credits: 25 })
    expect(parsed(["account", "create", "--credits", "0", "--name", "Ada"]))
      .toStrictEqual({ _tag: "AccountCreate", name: "Ada", credits: 0 })
  })

  it("account delete, credits add (positive and negative), key list, key delete, subscription clear", () => {
    expect(parsed(["account", "delete", accountId])).toStrictEqual({ _tag: "AccountDelete", accountId })
    expect(parsed(["credits", "add", accountId, "100"])).toStrictEqual({ _tag: "CreditsAdd", accountId, amount: 100 })
    expect(parsed(["credits", "add", accountId, "-3"])).toStrictEqual({ _tag: "CreditsAdd", accountId, amount: -3 })
    expect(parsed(["key", "list", accountId])).toStrictEqual({ _tag: "KeyList", accountId })
    expect(parsed(["key", "delete", keyId])).toStrictEqual({ _tag: "KeyDelete", keyId })
    expect(parsed(["subscription", "clear", accountId])).toStrictEqual({ _tag: "SubscriptionClear", accountId })
  })

  it("key create: no option, a name, an ISO expiry (a Date) or a number of days", () => {
    expect(parsed(["key", "create", accountId])).toStrictEqual({ _tag: "KeyCreate", accountId })
    expect(parsed(["key", "create", accountId, "--name", "CMS plugin"]))
      .toStrictEqual({ _tag: "KeyCreate", accountId, name: "CMS plugin" })
    expect(parsed(["key", "create", accountId, "--expires-at", "2030-01-01T00:00:00.000Z"]))
      .toStrictEqual({ _tag: "KeyCreate", accountId, expiresAt: new Date("2030-01-01T00:00:00.000Z") })
    expect(parsed(["key", "create", accountId, "--expires-in-days", "30", "--name", "shop"]))
      .toStrictEqual({ _tag: "KeyCreate", accountId, name: "shop", expiresInDays: 30 })
  })

  it("subscription set: the required flags, and the optional dates as Dates", () => {
    const required = ["subscription", "set", accountId, "--plan", "Pro", "--description", "<p>1,000 images</p>", "--status", "active"]
    expect(parsed(required)).toStrictEqual({
      _tag: "SubscriptionSet", accountId, plan: "Pro", description: "<p>1,000 images</p>", status: "active"
    })
    expect(parsed([...required, "--renews-at", "2026-12-01T00:00:00Z", "--ends-at", "2027-01-01"])).toStrictEqual({
      _tag: "SubscriptionSet", accountId, plan: "Pro", description: "<p>1,000 images</p>", status: "active",
      renewsAt: new Date("2026-12-01T00:00:00.000Z"), endsAt: new Date("2027-01-01T00:00:00.000Z")
    })
  })

  it("`--flag=value` reads like `--flag value`, and a value may itself hold `=`", () => {
    expect(parsed(["account", "create", "--name=Ada", "--email=ada@example.com", "--credits=3"]))
      .toStrictEqual({ _tag: "AccountCreate", name: "Ada", email: "ada@example.com", credits: 3 })
    expect(parsed(["key", "create", accountId, "--expires-in-days=7", "--name=a=b"]))
      .toStrictEqual({ _tag: "KeyCreate", accountId, name: "a=b", expiresInDays: 7 })
  })
})

describe("parseArgs: refusals carry the usage text", () => {
  it("no command, an unknown command, or a known noun with an unknown verb", () => {
    expect(refused([])).toBe(usage)
    expect(refused(["accounts", "create", "--name", "Ada"])).toBe(usage)
    expect(refused(["account", "rename", accountId])).toBe(usage)
    expect(refused(["credits"])).toBe(usage)
  })

  it("a missing name or id", () => {
    for (const argv of [
      ["account", "create"],
      ["account", "create", "--name", "  "],
      ["account", "create", "--name"],
      ["account", "delete"],
      ["credits", "add"],
      ["key", "create"],
      ["key", "list"],
      ["key", "delete"],
      ["subscription", "clear"],
      ["subscription", "set", accountId, "--plan", "Pro", "--status", "active"]
    ]) {
      expect(refused(argv), argv.join(" ")).toContain(usage)
    }
  })

  it("credits that are not a whole number of at least zero", () => {
    for (const credits of ["three", "", "-1", "2.5"]) {
      expect(refused(["account", "create", "--name", "Ada", "--credits", credits]), credits).toContain(usage)
    }
  })

  it("an amount that is missing, not a number, or fractional", () => {
    expect(refused(["credits", "add", accountId])).toContain(usage)
    expect(refused(["credits", "add", accountId, "ten"])).toContain(usage)
    expect(refused(["credits", "add", accountId, "1.5"])).toContain(usage)
  })

  it("an invalid date, or a number of days that is not positive", () => {
    expect(refused(["key", "create", accountId, "--expires-at", "tomorrow"])).toContain(usage)
    expect(refused(["key", "create", accountId, "--expires-at", "2030-13-45"])).toContain(usage)
    expect(refused(["key", "create", accountId, "--expires-in-days", "0"])).toContain(usage)
    expect(refused(["key", "create", accountId, "--expires-in-days", "soon"])).toContain(usage)
    expect(refused(["subscription", "set", accountId, "--plan", "Pro", "--description", "d", "--status", "active",
      "--renews-at", "next month"])).toContain(usage)
  })

  it("both --expires-at and --expires-in-days parse (runCommand refuses them: see commands.test.ts)", () => {
    expect(parsed(["key", "create", accountId, "--expires-at", "2030-01-01T00:00:00.000Z", "--expires-in-days", "3"]))
      .toStrictEqual({ _tag: "KeyCreate", accountId, expiresAt: new Date("2030-01-01T00:00:00.000Z"), expiresInDays: 3 })
  })

  // A mistyped flag or a stray word must not be dropped silently: `--expires-in 3` would give a
  // key that lives a year instead of three days, `--name Ada Lovelace` an account named `Ada`.
  it("an unknown flag or an extra word is refused, not ignored", () => {
    for (const argv of [
      ["key", "create", accountId, "--expires-in", "3"],
      ["key", "create", accountId, "--expiry", "2030-01-01"],
      ["account", "create", "--name", "Ada", "--emial", "ada@example.com"],
      ["account", "create", "--name", "Ada", "Lovelace"],
      ["credits", "add", accountId, "5", "6"],
      ["account", "delete", accountId, "--force"]
    ]) {
      expect(refused(argv), argv.join(" ")).toContain(usage)
    }
  })
})
