import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as PgliteClient from "../../src/db/PgliteClient.ts"

layer(PgliteClient.layer({}))("PgliteClient", (it) => {
  it.effect("the embedded PostgreSQL's shared memory is sized for one session: 8 MB of buffers (not 128), 10 connections (not 100)", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [buffers] = yield* sql<{ readonly sharedBuffers: string }>`SHOW shared_buffers`
      const [connections] = yield* sql<{ readonly maxConnections: string }>`SHOW max_connections`
      expect([buffers, connections]).toEqual([{ sharedBuffers: "8MB" }, { maxConnections: "10" }])
    }))

  // PGlite runs on the service's one thread: a queue of statements that never let the event loop
  // turn kept every other request (`/healthz` too) unread for seconds under a burst.
  it.effect("a queue of 300 statements lets the event loop turn between them", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const total = 300
      let done = 0
      const doneWhenTheTimerFired = Effect.promise(() => new Promise<number>((resolve) => setTimeout(() => resolve(done), 0)))
      const [atTimer] = yield* Effect.all([
        doneWhenTheTimerFired,
        Effect.forEach(Array.from({ length: total }), () => Effect.tap(sql`SELECT 1`, () => Effect.sync(() => done++)), { concurrency: "unbounded" })
      ], { concurrency: "unbounded" })
      expect(done).toBe(total)
      expect(atTimer).toBeLessThan(total / 10)
    }))
})
