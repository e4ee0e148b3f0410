/**
 * A PostgreSQL connection whose statement got no answer within `query_timeout` (Database.ts) is
 * ended, never used again. The driver fails such a statement but keeps the connection, with the
 * statement still on its way: the ROLLBACK sent after it waits behind it, times out in turn and
 * is dropped, and the connection goes back to the pool. Once the stall ends, the server starts
 * what had been sent (a BEGIN), and the connection's next user writes inside a transaction that
 * nobody ends: lost when the pool closes the connection (found by review: lost writes, and a
 * webhook event sent twice). Ended, its session's transaction is rolled back by the server.
 */
import type * as Pg from "pg"
import type { Callback, Query } from "./pgPrepared.ts"

/** The driver's own words for a `query_timeout` (`pg/lib/client.js`). */
const isReadTimeout = (error: unknown) => error instanceof Error && error.message === "Query read timeout"

export const endOnReadTimeout = (client: Pg.PoolClient): void => {
  const run = client.query.bind(client) as Query
  const endIfTimedOut = (error: unknown) => {
    if (isReadTimeout(error)) (client as unknown as Pg.Client).end().catch(() => undefined)
  }
  const watched = (callback: Callback): Callback => (error, result) => {
    endIfTimedOut(error)
    callback(error, result)
  }
  const query: Query = (config, values, callback) => {
    if (typeof values === "function") return run(config, watched(values as Callback))
    if (callback !== undefined) return run(config, values, watched(callback))
    const result = run(config, values)
    if (result instanceof Promise) result.catch(endIfTimedOut)
    return result
  }
  client.query = query as typeof client.query
}
