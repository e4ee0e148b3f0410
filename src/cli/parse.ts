/** argv to an operator command (issue 2 §6). Pure: the result is validated by `AdminCommand`. */
import { Either, ParseResult, Schema } from "effect"
import { AdminCommand } from "./commands.ts"

export const usage = `usage: bun run admin <command>
  account create --name NAME [--email E] [--credits N]
  account invite --email E --name NAME [--credits N]
  account delete ACCOUNT_ID
  credits add ACCOUNT_ID N
  key create ACCOUNT_ID [--name NAME] [--expires-at ISO | --expires-in-days N]
  key list ACCOUNT_ID
  key delete KEY_ID
  subscription set ACCOUNT_ID --plan NAME --description HTML --status STATUS [--renews-at ISO] [--ends-at ISO]
  subscription clear ACCOUNT_ID`

/**
 * Each command: its tag, its positional arguments and its flags, each mapped to the command's
 * field. Anything else on the line is refused, so a mistyped flag never silently changes nothing.
 */
const grammar: Record<string, {
  readonly tag: AdminCommand["_tag"]
  readonly positional: ReadonlyArray<string>
  readonly flags: Readonly<Record<string, string>>
  readonly numbers?: ReadonlyArray<string>
}> = {
  "account create": { tag: "AccountCreate", positional: [], flags: { name: "name", email: "email", credits: "credits" }, numbers: ["credits"] },
  "account invite": {
    tag: "AccountInvite",
    positional: [],
    flags: { email: "email", name: "name", credits: "credits" },
    numbers: ["credits"]
  },
  "account delete": { tag: "AccountDelete", positional: ["accountId"], flags: {} },
  "credits add": { tag: "CreditsAdd", positional: ["accountId", "amount"], flags: {}, numbers: ["amount"] },
  "key create": {
    tag: "KeyCreate",
    positional: ["accountId"],
    flags: { name: "name", "expires-at": "expiresAt", "expires-in-days": "expiresInDays" },
    numbers: ["expiresInDays"]
  },
  "key list": { tag: "KeyList", positional: ["accountId"], flags: {} },
  "key delete": { tag: "KeyDelete", positional: ["keyId"], flags: {} },
  "subscription set": {
    tag: "SubscriptionSet",
    positional: ["accountId"],
    flags: { plan: "plan", description: "description", status: "status", "renews-at": "renewsAt", "ends-at": "endsAt" }
  },
  "subscription clear": { tag: "SubscriptionClear", positional: ["accountId"], flags: {} }
}

/** Decimal integers only: `0x10`, `1e3` and ` 5 ` are not numbers an operator means. */
const wholeNumber = (text: string): string | number => (/^-?\d+$/.test(text) ? Number(text) : text)

const refuse = (problem: string) => Either.left(`${problem}\n\n${usage}`)

export const parseArgs = (argv: ReadonlyArray<string>): Either.Either<AdminCommand, string> => {
  const [noun, verb, ...rest] = argv
  const command = grammar[`${noun} ${verb}`]
  if (command === undefined) return Either.left(usage)
  const fields: Record<string, unknown> = { _tag: command.tag }
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
    fields[field] = value
  }
  if (words.length !== command.positional.length) {
    return refuse(`expected ${command.positional.length} argument(s) after "${noun} ${verb}", got ${words.length}`)
  }
  command.positional.forEach((field, i) => (fields[field] = words[i]))
  for (const field of command.numbers ?? []) {
    if (typeof fields[field] === "string") fields[field] = wholeNumber(fields[field])
  }
  return Schema.decodeUnknownEither(AdminCommand)(fields, { onExcessProperty: "error" }).pipe(
    Either.mapLeft((error) =>
      `${ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => `${issue.path.join(".") || "command"}: ${issue.message}`).join("\n")}\n\n${usage}`
    )
  )
}
