/**
 * argv to an operator command (README, Operator CLI). Pure: the result is validated by `AdminCommand`, and
 * a refusal names the command and the flag or argument as the operator typed them.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { AdminCommand } from "./adminCommand.ts"

const program = "bun run admin"

interface Grammar {
  readonly tag: AdminCommand["_tag"]
  /** The usage line after the program's name. */
  readonly synopsis: string
  /** Each positional argument's field, with the word the synopsis calls it. */
  readonly positional: ReadonlyArray<readonly [field: string, word: string]>
  /** Each flag (without `--`) mapped to the command's field. */
  readonly flags: Readonly<Record<string, string>>
  readonly numbers?: ReadonlyArray<string>
}

const account: Grammar["positional"] = [["accountId", "ACCOUNT"]]

/**
 * Each command, its arguments and its flags. Anything else on the line is refused, so a mistyped
 * flag never silently changes nothing.
 */
const grammar: Record<string, Grammar> = {
  "account create": {
    tag: "AccountCreate",
    synopsis: "account create --name NAME [--email E] [--credits N]",
    positional: [],
    flags: { name: "name", email: "email", credits: "credits" },
    numbers: ["credits"]
  },
  "account invite": {
    tag: "AccountInvite",
    synopsis: "account invite --email E --name NAME [--credits N]",
    positional: [],
    flags: { email: "email", name: "name", credits: "credits" },
    numbers: ["credits"]
  },
  "account list": { tag: "AccountList", synopsis: "account list [--email E]", positional: [], flags: { email: "email" } },
  "account show": { tag: "AccountShow", synopsis: "account show ACCOUNT", positional: account, flags: {} },
  "account delete": { tag: "AccountDelete", synopsis: "account delete ACCOUNT", positional: account, flags: {} },
  "credits add": {
    tag: "CreditsAdd",
    synopsis: "credits add ACCOUNT N",
    positional: [...account, ["amount", "N"]],
    flags: {},
    numbers: ["amount"]
  },
  "key create": {
    tag: "KeyCreate",
    synopsis: "key create ACCOUNT [--name NAME] [--expires-at ISO | --expires-in-days N]",
    positional: account,
    flags: { name: "name", "expires-at": "expiresAt", "expires-in-days": "expiresInDays" },
    numbers: ["expiresInDays"]
  },
  "key list": { tag: "KeyList", synopsis: "key list ACCOUNT", positional: account, flags: {} },
  "key delete": { tag: "KeyDelete", synopsis: "key delete KEY_ID", positional: [["keyId", "KEY_ID"]], flags: {} },
  "subscription set": {
    tag: "SubscriptionSet",
    synopsis: "subscription set ACCOUNT --plan NAME --description HTML --status STATUS [--renews-at ISO] [--ends-at ISO]",
    positional: account,
    flags: { plan: "plan", description: "description", status: "status", "renews-at": "renewsAt", "ends-at": "endsAt" }
  },
  "subscription clear": { tag: "SubscriptionClear", synopsis: "subscription clear ACCOUNT", positional: account, flags: {} },
  "user reset-link": { tag: "UserResetLink", synopsis: "user reset-link EMAIL", positional: [["email", "EMAIL"]], flags: {} },
  "user invite": { tag: "UserInvite", synopsis: "user invite ACCOUNT", positional: account, flags: {} }
}

export const usage = `usage: ${program} [--init] <command>
${Object.values(grammar).map((command) => `  ${command.synopsis}`).join("\n")}

ACCOUNT is an account's id or its e-mail address. The database is DATABASE_URL's, or the embedded
one in DATA_DIR (./data); --init creates the embedded one when it does not exist yet.
${program} COMMAND --help shows one command.`

const usageOf = (command: Grammar) => `usage: ${program} ${command.synopsis}`

/** What an operator must type for a field whose value the schema refused. */
const expectations: Readonly<Record<string, string>> = {
  credits: "a whole number, 0 or more",
  amount: "a whole number (negative removes credits)",
  expiresInDays: "a whole number of days, 1 or more",
  expiresAt: "a date such as 2030-01-01 (its start, 00:00 UTC) or 2030-01-01T12:00:00Z",
  renewsAt: "a date such as 2030-01-01 (its start, 00:00 UTC) or 2030-01-01T12:00:00Z",
  endsAt: "a date such as 2030-01-01 (its start, 00:00 UTC) or 2030-01-01T12:00:00Z",
  name: "a name that is not blank"
}

/** Decimal integers only: `0x10`, `1e3` and ` 5 ` are not numbers an operator means. */
const wholeNumber = (text: string): string | number => (/^-?\d+$/.test(text) ? Number(text) : text)

/** What the operator asked for: help (printed on stdout, exit 0), or a command to run. */
export type Invocation =
  | { readonly _tag: "Help"; readonly text: string }
  | { readonly _tag: "Run"; readonly name: string; readonly command: AdminCommand; readonly init: boolean }

const helpFlag = (arg: string) => arg === "--help" || arg === "-h"

/** `help`, `--help`, `help key create`, `key --help`: the usage of the commands named, or all of it. */
const help = (words: ReadonlyArray<string>): Extract<Invocation, { readonly _tag: "Help" }> => {
  const prefix = `${words.join(" ")} `
  const named = Object.entries(grammar).filter(([name]) => words.length > 0 && `${name} `.startsWith(prefix))
  return { _tag: "Help", text: named.length === 0 ? usage : named.map(([, command]) => usageOf(command)).join("\n") }
}

export const parseArgs = (argv: ReadonlyArray<string>): Either.Either<Invocation, string> => {
  // `--init` is the program's own flag, wherever it stands on the line.
  const init = argv.includes("--init")
  const [noun, verb, ...rest] = argv.filter((arg) => arg !== "--init")
  if (noun === undefined) return Either.left(usage)
  if (noun === "help" || helpFlag(noun)) {
    return Either.right(help([verb, ...rest].filter((word): word is string => word !== undefined && !helpFlag(word))))
  }
  const name = `${noun} ${verb ?? ""}`.trim()
  const command = Object.hasOwn(grammar, name) ? grammar[name] : undefined
  if (command === undefined) {
    const family = help([noun])
    const known = family.text !== usage
    // `key --help` shows the key commands; `key` alone is refused with them.
    if (known && verb !== undefined && helpFlag(verb)) return Either.right(family)
    if (known && verb === undefined) return Either.left(family.text)
    return Either.left(`unknown command "${name}"; ${program} help lists the commands`)
  }
  if (rest.some(helpFlag)) return Either.right({ _tag: "Help", text: usageOf(command) })
  const refuse = (problem: string) => Either.left(`${name}: ${problem}\n${usageOf(command)}`)

  const given: Record<string, string> = {}
  const label: Record<string, string> = {}
  const words: Array<string> = []
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (!arg.startsWith("--")) {
      words.push(arg)
      continue
    }
    const [flag, inline] = arg.includes("=") ? [arg.slice(2, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg.slice(2), undefined]
    const field = Object.hasOwn(command.flags, flag) ? command.flags[flag] : undefined
    if (field === undefined) return refuse(`unknown option --${flag}`)
    const value = inline ?? rest[++i]
    if (value === undefined) return refuse(`--${flag} needs a value`)
    given[field] = value
  }
  if (words.length !== command.positional.length) {
    const expected = command.positional.map(([, word]) => word).join(" ") || "no argument"
    return refuse(`expected ${expected}, got ${words.length === 0 ? "nothing" : words.map((w) => JSON.stringify(w)).join(" ")}`)
  }
  command.positional.forEach(([field, word], i) => {
    given[field] = words[i]!
    label[field] = word
  })
  for (const [flag, field] of Object.entries(command.flags)) label[field] = `--${flag}`

  const fields: Record<string, unknown> = { _tag: command.tag, ...given }
  for (const field of command.numbers ?? []) {
    if (given[field] !== undefined) fields[field] = wholeNumber(given[field])
  }
  return Schema.decodeUnknownEither(AdminCommand)(fields, { onExcessProperty: "error" }).pipe(
    Either.match({
      onRight: (decoded): Either.Either<Invocation, string> => Either.right({ _tag: "Run", name, command: decoded, init }),
      onLeft: (error) => {
        // One line per field, however many issues the schema found for it.
        const refused = new Set(ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => String(issue.path[0] ?? "")))
        const problems = [...refused].map((field) => {
          const word = label[field] ?? field
          const value = given[field]
          return value === undefined
            ? `${word} is required`
            : `${word}: expected ${expectations[field] ?? "another value"}, got ${JSON.stringify(value)}`
        })
        return refuse(problems.join("; "))
      }
    })
  )
}
