/** argv to an operator command (issue 2 §6). Pure: the result is validated by `AdminCommand`. */
import { Either, ParseResult, Schema } from "effect"
import { AdminCommand } from "./commands.ts"

export const usage = `usage: bun run admin <command>
  account create --name NAME [--email E] [--credits N]
  account delete ACCOUNT_ID
  credits add ACCOUNT_ID N
  key create ACCOUNT_ID [--name NAME] [--expires-at ISO | --expires-in-days N]
  key list ACCOUNT_ID
  key delete KEY_ID
  subscription set ACCOUNT_ID --plan NAME --description HTML --status STATUS [--renews-at ISO] [--ends-at ISO]
  subscription clear ACCOUNT_ID`

/** Positional words and `--flag value` pairs. */
const split = (argv: ReadonlyArray<string>) => {
  const words: Array<string> = []
  const flags = new Map<string, string>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith("--")) words.push(arg)
    else if (arg.includes("=")) flags.set(arg.slice(2, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1))
    else flags.set(arg.slice(2), argv[++i] ?? "")
  }
  return { words, flags }
}

const numberOrText = (value: string | undefined) =>
  value === undefined || value.trim() === "" || Number.isNaN(Number(value)) ? value : Number(value)

const toCommand = (words: ReadonlyArray<string>, flags: ReadonlyMap<string, string>): unknown => {
  const [noun, verb, id, extra] = words
  const flag = (name: string) => flags.get(name)
  switch (`${noun} ${verb}`) {
    case "account create":
      return { _tag: "AccountCreate", name: flag("name"), email: flag("email"), credits: numberOrText(flag("credits")) }
    case "account delete":
      return { _tag: "AccountDelete", accountId: id }
    case "credits add":
      return { _tag: "CreditsAdd", accountId: id, amount: numberOrText(extra) }
    case "key create":
      return {
        _tag: "KeyCreate", accountId: id, name: flag("name"),
        expiresAt: flag("expires-at"), expiresInDays: numberOrText(flag("expires-in-days"))
      }
    case "key list":
      return { _tag: "KeyList", accountId: id }
    case "key delete":
      return { _tag: "KeyDelete", keyId: id }
    case "subscription set":
      return {
        _tag: "SubscriptionSet", accountId: id, plan: flag("plan"), description: flag("description"),
        status: flag("status"), renewsAt: flag("renews-at"), endsAt: flag("ends-at")
      }
    case "subscription clear":
      return { _tag: "SubscriptionClear", accountId: id }
    default:
      return undefined
  }
}

/** Drops flags that were not given, so optional fields stay absent. */
const defined = (value: unknown) =>
  typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined))
    : value

export const parseArgs = (argv: ReadonlyArray<string>): Either.Either<AdminCommand, string> => {
  const { words, flags } = split(argv)
  const candidate = toCommand(words, flags)
  if (candidate === undefined) return Either.left(usage)
  return Schema.decodeUnknownEither(AdminCommand)(defined(candidate), { onExcessProperty: "error" }).pipe(
    Either.mapLeft((error) => `${ParseResult.TreeFormatter.formatErrorSync(error)}\n\n${usage}`)
  )
}
