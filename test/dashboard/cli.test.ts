import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseArgs, usage } from "../../src/cli/parse.ts"

describe("account invite (the operator's way in when SIGNUP=closed)", () => {
  it("parses an e-mail address, a name and optional credits, and is in the usage text", () => {
    expect(parseArgs(["account", "invite", "--email", "ada@example.com", "--name", "Ada's shop", "--credits", "25"]))
      .toStrictEqual(Either.right({
        _tag: "Run", name: "account invite", init: false,
        command: { _tag: "AccountInvite", email: "ada@example.com", name: "Ada's shop", credits: 25 }
      }))
    expect(parseArgs(["account", "invite", "--name=Ada", "--email=ada@example.com"]))
      .toStrictEqual(Either.right({
        _tag: "Run", name: "account invite", init: false, command: { _tag: "AccountInvite", name: "Ada", email: "ada@example.com" }
      }))
    expect(usage).toContain("account invite --email E --name NAME [--credits N]")
  })

  it("refuses a missing address or name, negative credits, and unknown flags", () => {
    for (const argv of [
      ["account", "invite", "--name", "Ada"],
      ["account", "invite", "--email", "ada@example.com"],
      ["account", "invite", "--email", "ada@example.com", "--name", "Ada", "--credits", "-1"],
      ["account", "invite", "--email", "ada@example.com", "--name", "Ada", "--password", "x"]
    ]) {
      expect(Either.isLeft(parseArgs(argv)), argv.join(" ")).toBe(true)
    }
  })
})
