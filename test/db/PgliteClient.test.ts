import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as PgliteClient from "../../src/db/PgliteClient.ts"

layer(PgliteClient.layer({}))("PgliteClient", (it) => {
  it.effect("the embedded PostgreSQL runs with 16 MB of shared buffers, not 128 MB, in the service's own memory", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ readonly sharedBuffers: string }>`SHOW shared_buffers`
      expect(rows).toEqual([{ sharedBuffers: "16MB" }])
    }))
})
