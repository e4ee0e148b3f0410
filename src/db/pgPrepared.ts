/**
 * Named prepared statements on PostgreSQL (Database.ts), as `pglitePrepared.ts` does on PGlite.
 * `@effect/sql-pg` sends each statement unnamed, so the server parses and plans it on every run;
 * named, a session parses and plans a text once and then only binds and runs it: 0.12 against
 * 0.30 ms for the credit reservation's statement (`pgbench -M prepared` against `-M extended`,
 * PostgreSQL 15 on loopback).
 */
import type * as Pg from "pg"
import { maxPrepared, planChanged } from "./preparedStatements.ts"

export type Callback = (error: Error | null, result: unknown) => void

/** The shape `@effect/sql-pg` calls a statement with: text, values, callback. */
export type Query = (config: string | Pg.QueryConfig, values?: unknown, callback?: Callback) => unknown

/** The driver's record of the names it has parsed: a closed name is taken out of it. */
const parsedNames = (client: Pg.ClientBase): Record<string, string> | undefined => {
  const connection: unknown = Reflect.get(client, "connection")
  const parsed: unknown = typeof connection === "object" && connection !== null ? Reflect.get(connection, "parsedStatements") : undefined
  return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, string>) : undefined
}

let counter = 0

/**
 * Makes every statement with values that `client` runs a named one. A text made at run time (an
 * `IN` list's length) must not grow the session: past `maxPrepared` texts the oldest is closed.
 * A plan that no longer fits its table (a replica's migration changed its columns) is closed and
 * the statement run once more, unless it ran inside a transaction, which that failure ended.
 */
export const prepareStatements = (client: Pg.ClientBase): void => {
  const run = client.query.bind(client) as Query
  const names = new Map<string, string>()

  /**
   * Closes a statement, then runs `next`. Sent behind what the session has queued, so a statement
   * already queued under the name still finds it; the driver forgets the name once it is closed.
   */
  const close = (name: string, next: () => unknown = () => undefined) =>
    run(`DEALLOCATE ${name}`, () => {
      const parsed = parsedNames(client)
      if (parsed !== undefined) delete parsed[name]
      return next()
    })

  /** The session's name for `text`; past `maxPrepared` texts the oldest is given up at once and closed. */
  const nameOf = (text: string) => {
    const known = names.get(text)
    if (known !== undefined) return known
    const oldest = names.entries().next().value
    if (names.size >= maxPrepared && oldest !== undefined) {
      names.delete(oldest[0])
      close(oldest[1])
    }
    const name = `effect_${++counter}`
    names.set(text, name)
    return name
  }

  const prepared: Query = (config, values, callback) => {
    if (typeof config !== "string" || !Array.isArray(values) || values.length === 0 || callback === undefined) {
      return run(config, values, callback)
    }
    const attempt = (again: boolean): unknown => {
      const name = nameOf(config)
      return run({ name, text: config, values }, undefined, (error, result) => {
        if (error === null || !again || !planChanged(error)) return callback(error, result)
        if (names.get(config) === name) names.delete(config)
        return close(name, () => (client.getTransactionStatus() === "I" ? attempt(false) : callback(error, result)))
      })
    }
    return attempt(true)
  }
  client.query = prepared as typeof client.query
}
