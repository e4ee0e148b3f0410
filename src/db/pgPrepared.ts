/**
 * Named prepared statements on PostgreSQL (Database.ts), as `pglitePrepared.ts` does on PGlite.
 * `@effect/sql-pg` sends each statement unnamed, so the server parses and plans it on every run;
 * named, a session parses and plans a text once and then only binds and runs it: 0.12 against
 * 0.30 ms for the credit reservation's statement (`pgbench -M prepared` against `-M extended`,
 * PostgreSQL 15 on loopback).
 */
import type * as Pg from "pg"
import { maxPrepared, planChanged } from "./preparedStatements.ts"

type Callback = (error: Error | null, result: unknown) => void

/** The shape `@effect/sql-pg` calls a statement with: text, values, callback. */
type Query = (config: string | Pg.QueryConfig, values?: unknown, callback?: Callback) => unknown

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

  /** Closes `text`'s statement, then runs `next`: one statement at a time on the session. */
  const close = (text: string, next: () => unknown) => {
    const name = names.get(text)
    if (name === undefined) return next()
    names.delete(text)
    const parsed = parsedNames(client)
    if (parsed !== undefined) delete parsed[name]
    return run(`DEALLOCATE ${name}`, () => next())
  }

  /** The session's name for `text`, once the oldest is closed when there is no room for one more. */
  const named = (text: string, next: (name: string) => unknown) => {
    const known = names.get(text)
    if (known !== undefined) return next(known)
    const make = () => {
      const name = `effect_${++counter}`
      names.set(text, name)
      return next(name)
    }
    return names.size >= maxPrepared ? close(names.keys().next().value as string, make) : make()
  }

  const prepared: Query = (config, values, callback) => {
    if (typeof config !== "string" || !Array.isArray(values) || values.length === 0 || callback === undefined) {
      return run(config, values, callback)
    }
    const attempt = (again: boolean): unknown =>
      named(config, (name) =>
        run({ name, text: config, values }, undefined, (error, result) =>
          error !== null && again && planChanged(error)
            ? close(config, () => (client.getTransactionStatus() === "I" ? attempt(false) : callback(error, result)))
            : callback(error, result)))
    return attempt(true)
  }
  client.query = prepared as typeof client.query
}
