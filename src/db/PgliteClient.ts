/**
 * An @effect/sql `SqlClient` over PGlite (PostgreSQL compiled to WASM, in-process), so the
 * embedded default speaks the same SQL dialect, compiler and migrations as @effect/sql-pg.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as Client from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import { PGlite } from "@electric-sql/pglite"
import { preparedStatements } from "./pglitePrepared.ts"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as String from "effect/String"
import { fileURLToPath } from "node:url"
import * as DataDir from "./DataDir.ts"
import * as DatabaseMarker from "./DatabaseMarker.ts"
import * as DataDirLock from "./DataDirLock.ts"
import { pgliteOptions } from "./pgliteOptions.ts"
import { makeFifoSemaphore } from "../services/fifoSemaphore.ts"
import { acquireRelease } from "../services/scopedRelease.ts"
import { messageOf } from "../services/messageOf.ts"

export interface PgliteClientConfig {
  /** A folder to persist the database in; in memory when absent. */
  readonly dataDir?: string | undefined
}

const run = <A>(what: string, query: () => Promise<A>) =>
  Effect.tryPromise({ try: query, catch: (cause) => new SqlError({ cause, message: `PGlite: ${what}` }) })

/**
 * Databases whose PostgreSQL stopped on a PANIC (a write or a sync of its files failed). PostgreSQL
 * ends its processes then; inside PGlite nothing ends, and any later statement, or `close`, never
 * returns and spins a core. So nothing more is sent to one: its statements fail at once, and it is
 * not closed. The next start recovers the folder from its log.
 */
const stopped = new WeakSet<PGlite>()

/** Whether `db` stopped on a PANIC: then it must not be closed (see `stopped`). */
export const hasStopped = (db: PGlite): boolean => stopped.has(db)

const isPanic = (cause: unknown) =>
  typeof cause === "object" && cause !== null && "severity" in cause && cause.severity === "PANIC"

const stoppedError = new SqlError({ cause: "PANIC", message: "PGlite: the database stopped after a PANIC; restart the service" })

/** A statement on `db`, unless it stopped; a PANIC stops it, and says so in the log once. */
const statementOn = (db: PGlite) => <A>(query: () => Promise<A>) =>
  Effect.suspend(() =>
    stopped.has(db)
      ? Effect.fail(stoppedError)
      : run("failed to execute statement", query).pipe(
        Effect.tapError((error) =>
          isPanic(error.cause)
            ? Effect.sync(() => stopped.add(db)).pipe(
              Effect.zipRight(Effect.logError("the embedded database stopped after a PANIC: restart the service (PostgreSQL recovers the folder as it starts)").pipe(
                Effect.annotateLogs({ reason: messageOf(error.cause) })
              ))
            )
            : Effect.void
        )
      )
  )

const createScript = fileURLToPath(new URL("./pgliteCreate.ts", import.meta.url))

/**
 * A folder without a database gets one from a child process (`pgliteCreate.ts`), migrated, before
 * it is opened here: the creation's memory (a peak near 1 GB, 640 MB still resident after it) and
 * the migrations' (12 to 16 MiB of PostgreSQL's caches, kept for good by the process that ran
 * them) leave with that process, and this one opens the folder as on any later start.
 */
const createIfMissing = (dataDir: string) =>
  Effect.flatMap(DatabaseMarker.embeddedExists(dataDir), (exists) =>
    exists
      ? Effect.void
      : Effect.tryPromise({
        try: async (interrupted) => {
          // The child inherits the folder's lock (its descriptor, as fd 3) and holds it with this
          // process: should this one be killed mid-creation, a restart finds the folder busy until
          // the child has ended, instead of opening it under the child.
          const lock = Option.toArray(DataDirLock.heldDescriptor(dataDir))
          const child = Bun.spawn({ cmd: [process.execPath, createScript, dataDir], stdio: ["ignore", "ignore", "pipe", ...lock] })
          // A start given up (a signal, a timeout) takes the child with it.
          interrupted.addEventListener("abort", () => child.kill())
          const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()])
          if (code !== 0) throw new Error(`exit code ${code}${child.signalCode === null ? "" : ` (${child.signalCode})`}: ${stderr.trim()}`)
        },
        // The child's own words in the message: the operator CLI prints only that.
        catch: (cause) =>
          new SqlError({ cause, message: `PGlite: failed to create the database: ${messageOf(cause)}` })
      }))

/** A creation cut short before it synced the folder leaves that to the next start (`DataDir.syncFolderOnce`). */
const syncedOnce = (dataDir: string) =>
  Effect.tryPromise({
    try: () => DataDir.syncFolderOnce(dataDir),
    catch: (cause) => new SqlError({ cause, message: `PGlite: failed to sync the data folder: ${messageOf(cause)}` })
  })

/**
 * PGlite runs in this thread, and a statement's run is promises only: a queue of statements kept the
 * event loop from reading any socket until it was empty (1,000 describes at once left `/healthz`
 * unanswered for 1.8 to 2.6 s; 0.12 to 0.28 s with this turn before each). `setImmediate` comes
 * after the loop has polled for I/O.
 */
const nextTurnOfTheEventLoop = Effect.async<void>((resume) => {
  setImmediate(() => resume(Effect.void))
})

/**
 * The `SqlClient` over an open database: the service's (`make`), and the creating process's, which
 * runs the migrations with it (`pgliteCreate.ts`).
 */
export const clientOn = (db: PGlite, dataDir: string | undefined) =>
  Effect.gen(function* () {
    // The service's statements are a few fixed texts: each is parsed and planned once, then only
    // bound and run (a statement's parse and plan took 4 times as long as its run).
    const prepared = preparedStatements(db)
    const statement = statementOn(db)
    const rows = (sql: string, params: ReadonlyArray<unknown>) =>
      statement(() => prepared.query(sql, params, "object")).pipe(
        Effect.map((rows) => rows as ReadonlyArray<object>)
      )

    const connection: Connection = {
      execute: (sql, params, transformRows) =>
        transformRows ? Effect.map(rows(sql, params), transformRows) : rows(sql, params),
      executeRaw: (sql, params) => statement(() => db.query(sql, [...params])),
      executeValues: (sql, params) =>
        statement(() => prepared.query(sql, params, "array")).pipe(
          Effect.map((rows) => rows as ReadonlyArray<ReadonlyArray<unknown>>)
        ),
      // Not kept as prepared statements: their text is made at run time. Parameterless ones may
      // hold several commands (migrations); PGlite's `exec` takes them.
      executeUnprepared: (sql, params, transformRows) =>
        params.length > 0
          ? statement(() => db.query<object>(sql, [...params])).pipe(
            Effect.map((result) => (transformRows ? transformRows(result.rows) : result.rows))
          )
          : statement(() => db.exec(sql)).pipe(
            Effect.map((results) => results.at(-1)?.rows ?? []),
            Effect.map((rows) => (transformRows ? transformRows(rows as ReadonlyArray<object>) : rows))
          ),
      executeStream: (sql, params, transformRows) =>
        Stream.fromIterableEffect(connection.execute(sql, params, transformRows))
    }

    // PGlite is one session: a transaction owns it until it ends, so every use takes the one permit,
    // otherwise a statement from another fiber would run inside (and roll back with) that transaction.
    const session = yield* makeFifoSemaphore(1)
    const acquirer = acquireRelease(Effect.zipRight(session.take(1), nextTurnOfTheEventLoop), () => session.release(1)).pipe(Effect.as(connection))

    return yield* Client.make({
      acquirer,
      transactionAcquirer: acquirer,
      // The same name mapping as `Database.layerPostgres`: camelCase in TypeScript, snake_case in SQL.
      compiler: makeCompiler(String.camelToSnake),
      transformRows: Statement.defaultTransforms(String.snakeToCamel).array,
      spanAttributes: [["db.system.name", "postgresql"], ["db.namespace", dataDir ?? "memory"]]
    })
  })

export const make = (config: PgliteClientConfig) =>
  Effect.gen(function* () {
    if (config.dataDir !== undefined) {
      yield* createIfMissing(config.dataDir)
      yield* syncedOnce(config.dataDir)
    }
    const db = yield* Effect.acquireRelease(
      run("failed to open", () => PGlite.create(pgliteOptions(config.dataDir))),
      (db) => hasStopped(db) ? Effect.void : Effect.promise(() => db.close()).pipe(Effect.ignore)
    )
    return yield* clientOn(db, config.dataDir)
  })

export const layer = (config: PgliteClientConfig): Layer.Layer<Client.SqlClient, SqlError> =>
  Layer.scoped(Client.SqlClient, make(config)).pipe(Layer.provide(Reactivity.layer))
