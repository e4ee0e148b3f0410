import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseArgs, usage } from "../../src/cli/parse.ts"

const accountId = "6f1c2b1e-8f0a-4c1e-9a57-0d2d3c4b5a69"
const keyId = "0b7e4a52-3d6f-4f55-8a1c-2e9f7b6d5c43"

/** What argv asks for; fails the test with the parser's message when refused. */
const invocation = (argv: ReadonlyArray<string>) =>
  Either.getOrThrowWith(parseArgs(argv), (message) => new Error(`refused: ${message}`))

/** The command argv parses to; fails the test otherwise. */
const parsed = (argv: ReadonlyArray<string>) => {
  const asked = invocation(argv)
  if (asked._tag !== "Run") throw new Error(`help, not a command: ${asked.text}`)
  return asked.command
}

/** The help text argv asks for; fails the test otherwise. */
const helpOf = (argv: ReadonlyArray<string>) => {
  const asked = invocation(argv)
  if (asked._tag !== "Help") throw new Error(`a command, not help: ${JSON.stringify(asked)}`)
  return asked.text
}

/** The parser's message for argv; fails the test when argv parses. */
const refused = (argv: ReadonlyArray<string>) =>
  Either.getOrThrowWith(Either.flip(parseArgs(argv)), (command) => new Error(`parsed: ${JSON.stringify(command)}`))

const createUsage = "usage: bun run admin account create --name NAME [--email E] [--credits N]"
const keyCreateUsage = "usage: bun run admin key create ACCOUNT [--name NAME] [--expires-at ISO | --expires-in-days N]"

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

describe("parseArgs: new commands, accounts by e-mail, --init", () => {
  it("account list with or without --email, account show by id or e-mail, user reset-link", () => {
    expect(parsed(["account", "list"])).toStrictEqual({ _tag: "AccountList" })
    expect(parsed(["account", "list", "--email", "ada@example.com"])).toStrictEqual({ _tag: "AccountList", email: "ada@example.com" })
    expect(parsed(["account", "show", accountId])).toStrictEqual({ _tag: "AccountShow", accountId })
    expect(parsed(["account", "show", "ada@example.com"])).toStrictEqual({ _tag: "AccountShow", accountId: "ada@example.com" })
    expect(parsed(["user", "reset-link", "ada@example.com"])).toStrictEqual({ _tag: "UserResetLink", email: "ada@example.com" })
    expect(parsed(["user", "invite", "shop@example.com"])).toStrictEqual({ _tag: "UserInvite", accountId: "shop@example.com" })
  })

  it("every command that takes an account takes its e-mail address in its place", () => {
    const email = "ada@example.com"
    expect(parsed(["credits", "add", email, "5"])).toStrictEqual({ _tag: "CreditsAdd", accountId: email, amount: 5 })
    expect(parsed(["key", "create", email])).toStrictEqual({ _tag: "KeyCreate", accountId: email })
    expect(parsed(["key", "list", email])).toStrictEqual({ _tag: "KeyList", accountId: email })
    expect(parsed(["account", "delete", email])).toStrictEqual({ _tag: "AccountDelete", accountId: email })
    expect(parsed(["subscription", "clear", email])).toStrictEqual({ _tag: "SubscriptionClear", accountId: email })
  })

  it("--init, anywhere on the line, asks to create the embedded database; it is off otherwise", () => {
    expect(invocation(["--init", "account", "list"])).toStrictEqual({ _tag: "Run", name: "account list", command: { _tag: "AccountList" }, init: true })
    expect(invocation(["account", "create", "--name", "Ada", "--init"])).toMatchObject({ name: "account create", init: true })
    expect(invocation(["account", "list"])).toMatchObject({ init: false })
  })
})

describe("parseArgs: help", () => {
  it("help, --help and -h give the whole usage; with a command (before or after), that command's line", () => {
    for (const argv of [["help"], ["--help"], ["-h"], ["--init", "--help"]]) expect(helpOf(argv), argv.join(" ")).toBe(usage)
    for (const argv of [["account", "create", "--help"], ["account", "create", "-h"], ["help", "account", "create"],
      ["account", "create", "--name", "Ada", "--help"], ["--help", "account", "create"]]) {
      expect(helpOf(argv), argv.join(" ")).toBe(createUsage)
    }
    expect(helpOf(["key", "--help"])).toBe([keyCreateUsage, "usage: bun run admin key list ACCOUNT", "usage: bun run admin key delete KEY_ID"].join("\n"))
    expect(helpOf(["user", "--help"])).toBe("usage: bun run admin user reset-link EMAIL\nusage: bun run admin user invite ACCOUNT")
  })

  it("the usage lists every command, and what ACCOUNT and --init mean", () => {
    for (const line of ["account list [--email E]", "account show ACCOUNT", "user reset-link EMAIL", "credits add ACCOUNT N"]) {
      expect(usage).toContain(`  ${line}\n`)
    }
    expect(usage).toContain("ACCOUNT is an account's id or its e-mail address")
    expect(usage).toContain("--init creates the embedded one")
  })

  // `help` is a word like any other after the command: an account may be named so.
  it("a value that reads `help` is a value", () => {
    expect(parsed(["account", "create", "--name", "help"])).toStrictEqual({ _tag: "AccountCreate", name: "help" })
  })
})

describe("parseArgs: refusals name the command and the flag as typed, then that command's usage line", () => {
  it("no command gives the whole usage; an unknown command says so, without the whole usage", () => {
    expect(refused([])).toBe(usage)
    expect(refused(["accounts", "create", "--name", "Ada"])).toBe('unknown command "accounts create"; bun run admin help lists the commands')
    expect(refused(["account", "rename", accountId])).toBe('unknown command "account rename"; bun run admin help lists the commands')
    expect(refused(["accounts"])).toBe('unknown command "accounts"; bun run admin help lists the commands')
    expect(refused(["user"])).toBe("usage: bun run admin user reset-link EMAIL\nusage: bun run admin user invite ACCOUNT")
  })

  it("a bad number, once, with the flag or argument as typed and what it must be", () => {
    expect(refused(["account", "create", "--name", "Ada", "--credits", "abc"]))
      .toBe(`account create: --credits: expected a whole number, 0 or more, got "abc"\n${createUsage}`)
    for (const credits of ["three", "", "-1", "2.5"]) {
      expect(refused(["account", "create", "--name", "Ada", "--credits", credits]), credits)
        .toBe(`account create: --credits: expected a whole number, 0 or more, got ${JSON.stringify(credits)}\n${createUsage}`)
    }
    expect(refused(["key", "create", accountId, "--expires-in-days", "soon"]))
      .toBe(`key create: --expires-in-days: expected a whole number of days, 1 or more, got "soon"\n${keyCreateUsage}`)
    expect(refused(["key", "create", accountId, "--expires-in-days", "0"]))
      .toBe(`key create: --expires-in-days: expected a whole number of days, 1 or more, got "0"\n${keyCreateUsage}`)
    for (const amount of ["ten", "1.5"]) {
      expect(refused(["credits", "add", accountId, amount]))
        .toBe(`credits add: N: expected a whole number (negative removes credits), got ${JSON.stringify(amount)}\nusage: bun run admin credits add ACCOUNT N`)
    }
  })

  it("an invalid date names its flag", () => {
    const date = 'a date such as 2030-01-01 (its start, 00:00 UTC) or 2030-01-01T12:00:00Z'
    expect(refused(["key", "create", accountId, "--expires-at", "tomorrow"]))
      .toBe(`key create: --expires-at: expected ${date}, got "tomorrow"\n${keyCreateUsage}`)
    expect(refused(["key", "create", accountId, "--expires-at", "2030-13-45"])).toContain(`--expires-at: expected ${date}`)
    expect(refused(["subscription", "set", accountId, "--plan", "Pro", "--description", "d", "--status", "active",
      "--renews-at", "next month"])).toContain(`subscription set: --renews-at: expected ${date}, got "next month"`)
  })

  it("a missing or blank flag, or a missing argument", () => {
    expect(refused(["account", "create"])).toBe(`account create: --name is required\n${createUsage}`)
    expect(refused(["account", "create", "--name", "  "]))
      .toBe(`account create: --name: expected a name that is not blank, got "  "\n${createUsage}`)
    expect(refused(["account", "create", "--name"])).toBe(`account create: --name needs a value\n${createUsage}`)
    expect(refused(["account", "invite", "--name", "Ada"])).toMatch(/^account invite: --email is required\n/)
    expect(refused(["subscription", "set", accountId, "--plan", "Pro", "--status", "active"]))
      .toMatch(/^subscription set: --description is required\n/)
    expect(refused(["credits", "add", accountId])).toBe(`credits add: expected ACCOUNT N, got "${accountId}"\nusage: bun run admin credits add ACCOUNT N`)
    for (const argv of [["account", "show"], ["account", "delete"], ["key", "create"], ["key", "list"], ["subscription", "clear"]]) {
      expect(refused(argv), argv.join(" ")).toMatch(new RegExp(`^${argv.join(" ")}: expected ACCOUNT, got nothing\n`))
    }
    expect(refused(["key", "delete"])).toMatch(/^key delete: expected KEY_ID, got nothing\n/)
    expect(refused(["user", "reset-link"])).toMatch(/^user reset-link: expected EMAIL, got nothing\n/)
  })

  it("no refusal repeats the whole usage", () => {
    for (const argv of [["account", "create", "--credits", "x"], ["accounts"], ["key", "create", accountId, "--expiry", "3"]]) {
      expect(refused(argv), argv.join(" ")).not.toContain("subscription clear")
    }
  })

  it("both --expires-at and --expires-in-days parse (runCommand refuses them: see commands.test.ts)", () => {
    expect(parsed(["key", "create", accountId, "--expires-at", "2030-01-01T00:00:00.000Z", "--expires-in-days", "3"]))
      .toStrictEqual({ _tag: "KeyCreate", accountId, expiresAt: new Date("2030-01-01T00:00:00.000Z"), expiresInDays: 3 })
  })

  // A mistyped flag or a stray word must not be dropped silently: `--expires-in 3` would give a
  // key that lives a year instead of three days, `--name Ada Lovelace` an account named `Ada`.
  it("an unknown flag or an extra word is refused, not ignored", () => {
    expect(refused(["key", "create", accountId, "--expires-in", "3"])).toBe(`key create: unknown option --expires-in\n${keyCreateUsage}`)
    expect(refused(["account", "create", "--name", "Ada", "--emial", "ada@example.com"])).toBe(`account create: unknown option --emial\n${createUsage}`)
    expect(refused(["account", "create", "--name", "Ada", "Lovelace"])).toBe(`account create: expected no argument, got "Lovelace"\n${createUsage}`)
    expect(refused(["credits", "add", accountId, "5", "6"])).toMatch(/^credits add: expected ACCOUNT N, got /)
    expect(refused(["account", "delete", accountId, "--force"])).toMatch(/^account delete: unknown option --force\n/)
  })
})
