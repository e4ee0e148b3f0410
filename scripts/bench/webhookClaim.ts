/**
 * What one webhook worker's look for a due event costs (services/WebhookDelivery.ts, `claim`) when
 * one account has a backlog: due events of a paused receiver, or retries due later (a receiver that
 * fails fast; with a paused receiver's one due event besides, so that the look counts the events in
 * flight). With PGlite that statement runs on the request thread, once a second per worker.
 * 300 other accounts have an event each, due later, so nothing can be claimed: each look is one
 * claim that finds nothing. In-process, on in-memory PGlite, with the code `BENCH_REV` or the
 * working tree names (lib/source.ts).
 *
 *   bun scripts/bench/webhookClaim.ts [--quick]
 *   BENCH_REV=<commit> bun scripts/bench/webhookClaim.ts     # the same on an earlier commit
 */
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer } from "effect"
import * as path from "node:path"
import { footer, header, quick } from "./lib/report.ts"
import { percentile, table } from "./lib/stats.ts"
import { source } from "./lib/source.ts"

// The measured code's modules, typed as the working tree's.
const from = async <M>(file: string): Promise<M> => (await import(path.join(source.root, "src", file))) as M
const { ServicesLive } = await from<typeof import("../../src/app.ts")>("app.ts")
const Database = await from<typeof import("../../src/db/Database.ts")>("db/Database.ts")
const { WebhookDelivery } = await from<typeof import("../../src/services/WebhookDelivery.ts")>("services/WebhookDelivery.ts")
const Settings = await from<typeof import("../../src/config/Settings.ts")>("config/Settings.ts")
const { parseAllowList } = await from<typeof import("../../src/domain/publicAddress.ts")>("domain/publicAddress.ts")

const backlogs = quick ? [0, 5_000] : [0, 5_000, 50_000]
const looks = quick ? 10 : 30
const otherAccounts = 300

header(
  `A webhook worker's look for a due event, with one account's backlog (${otherAccounts} other accounts, nothing claimable)`,
  `bun scripts/bench/webhookClaim.ts${quick ? " --quick" : ""}`
)

const delivery = WebhookDelivery.layerWith({
  allow: parseAllowList("127.0.0.1").allow, timeout: Duration.seconds(5), poll: Duration.seconds(1), concurrency: 1, perAccount: 2
})

type Backlog = "due, receiver paused" | "retries due later"

const measure = (kind: Backlog, backlog: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const account = (id: string) => sql`INSERT INTO accounts (id, name, email, registered_at, credits) VALUES (${id}, 'bench', ${`${id}@bench`}, now(), 1)`
    const owner = crypto.randomUUID()
    const paused = kind === "due, receiver paused"
    yield* account(owner)
    yield* sql.unsafe(`INSERT INTO webhook_events (id, account_id, url, type, payload, created_at, state, next_attempt_at, attempts)
      SELECT 'msg_backlog_' || g, '${owner}', 'http://127.0.0.1:9/hook', 'batch.completed', repeat('p', 400), now(), 'pending',
        now() ${paused ? "-" : "+"} interval '1 hour' + g * interval '1 ms', ${paused ? 0 : 1} FROM generate_series(1, ${backlog}) g`)
    // A paused receiver with one due event besides: the look then counts the events in flight.
    const pausedOwner = paused ? owner : crypto.randomUUID()
    if (!paused) {
      yield* account(pausedOwner)
      yield* sql`INSERT INTO webhook_events (id, account_id, url, type, payload, created_at, state, next_attempt_at)
        VALUES ('msg_paused', ${pausedOwner}, 'http://127.0.0.1:9/hook', 'batch.completed', 'p', now(), 'pending', now() - interval '1 hour')`
    }
    yield* sql`INSERT INTO webhook_receiver_pauses (account_id, url, failures, timed_out_at, until)
      VALUES (${pausedOwner}, 'http://127.0.0.1:9/hook', 3, now(), now() + interval '1 hour')`
    for (let i = 0; i < otherAccounts; i++) {
      const other = crypto.randomUUID()
      yield* account(other)
      yield* sql`INSERT INTO webhook_events (id, account_id, url, type, payload, created_at, state, next_attempt_at)
        VALUES (${`msg_other_${i}`}, ${other}, 'http://127.0.0.1:9/hook', 'batch.completed', 'p', now(), 'pending', now() + interval '1 hour')`
    }
    yield* sql.unsafe("ANALYZE")
    const deliverDue = Effect.flatMap(WebhookDelivery, (d) => d.deliverDue)
    const times: Array<number> = []
    for (let i = 0; i < looks; i++) {
      const started = performance.now()
      const delivered = yield* deliverDue
      times.push(performance.now() - started)
      if (delivered !== 0) throw new Error(`a look delivered ${delivered} events: nothing should be claimable`)
    }
    return [kind, backlog.toLocaleString("en"), `${percentile(times, 50).toFixed(2)} ms`, `${percentile(times, 90).toFixed(2)} ms`]
  }).pipe(
    Effect.provide(delivery.pipe(
      Layer.provideMerge(ServicesLive),
      Layer.provideMerge(Database.layerPglite(undefined)),
      Layer.provideMerge(Settings.layer)
    )),
    Effect.orDie
  )

const rows = []
for (const kind of ["due, receiver paused", "retries due later"] as const) {
  for (const backlog of backlogs) rows.push(await Effect.runPromise(measure(kind, backlog)))
}
console.log(table(["one account's backlog", "events", `look p50 (${looks} looks)`, "look p90"], rows))
footer()
