/**
 * docs/api.md lists every error of the two client endpoints, with its status, as the service
 * answers it. The messages come from the tables that answer requests (`src/domain/describeChecks.ts`,
 * `src/http/errors.ts`), given every instance of test/support/describeFailures.ts and one of each
 * key error: a tag added to `DescribeError` or `ApiKeyError` without a case does not compile.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import type { ApiKeyError } from "../../src/domain/errors.ts"
import { AccountNotFound, ApiKeyInvalid, ApiKeyMalformed, ApiKeyMissing, ApiKeyRevoked } from "../../src/domain/errors.ts"
import { failedCheck } from "../../src/domain/describeChecks.ts"
import { tokensStatusAndMessage } from "../../src/http/errors.ts"
import { type Cases, everyDescribeFailure } from "../support/describeFailures.ts"
import { batchFailures, createFailures, listFailures } from "../../src/http/openapiBatches.ts"

const tokensCases: Cases<ApiKeyError> = {
  ApiKeyMissing: [new ApiKeyMissing()],
  ApiKeyInvalid: [new ApiKeyInvalid()],
  ApiKeyMalformed: [new ApiKeyMalformed()],
  ApiKeyRevoked: [new ApiKeyRevoked()],
  AccountNotFound: [new AccountNotFound()]
}

const all = <E extends { readonly _tag: string }>(cases: Cases<E>): ReadonlyArray<E> =>
  Object.values<ReadonlyArray<E>>(cases as unknown as Record<string, ReadonlyArray<E>>).flat()

const row = ([status, message]: readonly [number, string]) => `${status} ${message}`

/**
 * The `status | \`message\`` rows of the table under `heading`, up to the next heading of its
 * level or above.
 */
const documentedErrors = (doc: string, heading: string): ReadonlyArray<string> => {
  const start = doc.indexOf(`\n${heading}\n`)
  if (start < 0) return []
  const rest = doc.slice(start + heading.length + 2)
  const end = rest.search(/\n#{1,3} /)
  const section = end < 0 ? rest : rest.slice(0, end)
  return [...section.matchAll(/^\| (\d{3}) \| `([^`]+)`/gm)].map((match) => `${match[1]} ${match[2]}`)
}

const doc = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8")

// `unexpected(...)` in the routes: the defect answers, not in the error tables.
const tokensDefect = row([500, "Server error"])
// One documented row is a pattern for the lower pixel limits, not a message.
const pixelPattern = "413 Image too large: the maximum is N megapixels"

describe("docs/api.md", () => {
  it("lists every error of POST /api/describe, with its status, exactly as the service answers it", () => {
    const documented = documentedErrors(doc, "### Errors of POST /api/describe")
    const answered = new Set(everyDescribeFailure.map((error) => row([failedCheck(error).status, failedCheck(error).message])))
    expect([...answered].filter((message) => !documented.includes(message))).toEqual([])
    // And nothing the service no longer says.
    expect(documented.filter((message) => !answered.has(message) && message !== pixelPattern)).toEqual([])
  })

  it("lists every error of the batch endpoints, with its status, exactly as the service answers it", () => {
    const documented = documentedErrors(doc, "### Errors of the batch endpoints")
    const answered = new Set([...createFailures, ...listFailures, ...batchFailures].map((failure) => row([failure.status, failure.message])))
    expect([...answered].filter((message) => !documented.includes(message))).toEqual([])
    expect(documented.filter((message) => !answered.has(message))).toEqual([])
  })

  it("lists every error of GET /api/tokens, with its status, exactly as the service answers it", () => {
    const documented = documentedErrors(doc, "### Errors of GET /api/tokens")
    const answered = new Set([...all(tokensCases).map((error) => row(tokensStatusAndMessage(error))), tokensDefect])
    expect([...answered].filter((message) => !documented.includes(message))).toEqual([])
    expect(documented.filter((message) => !answered.has(message))).toEqual([])
  })

  it("is what the README links to for the API, rather than a document outside the repository", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8")
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1])
    expect(targets).toContain("docs/api.md")
    expect(targets.filter((target) => target?.startsWith("../"))).toEqual([])
  })
})
