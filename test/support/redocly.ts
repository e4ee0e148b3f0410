/** Redocly's lint with its `recommended` rules, offline, on a document as served. */
import { BaseResolver, createConfig, lintDocument, Source } from "@redocly/openapi-core"
import { Effect } from "effect"

/** Each problem as `severity rule pointer: message`, none when the document passes. */
export const redoclyProblems = (document: unknown) =>
  Effect.promise(async () => {
    const config = await createConfig({ extends: ["recommended"] })
    const problems = await lintDocument({
      document: { source: new Source("openapi.json", JSON.stringify(document)), parsed: document },
      config,
      externalRefResolver: new BaseResolver()
    })
    return problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ""}: ${p.message}`)
  })
