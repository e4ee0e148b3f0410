/**
 * This service process, as the database sees it: an id that tags its credit reservations, and a
 * way to tell whether the process that made a reservation is still running (README, Operations: Credits and the database).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../config/AppConfig.ts"

export class Instance extends Context.Tag("Instance")<Instance, {
  readonly id: string
  readonly isAlive: (other: string) => Effect.Effect<boolean>
}>() {
  /** The embedded database admits one process, so any other instance has ended. */
  static readonly single: Layer.Layer<Instance> = Layer.sync(Instance, () => ({
    id: crypto.randomUUID(),
    isAlive: () => Effect.succeed(false)
  }))

  /**
   * PostgreSQL: each process holds a session advisory lock named after its id for its lifetime.
   * The server drops the lock with the session, so a lock that can be taken belongs to no one alive.
   */
  static readonly postgres: Layer.Layer<Instance, never, SqlClient.SqlClient> = Layer.scoped(
    Instance,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const id = crypto.randomUUID()
      const lock = (key: string) => `SELECT pg_${key}(hashtextextended($1, 0)) AS held`
      // Hold the lock on a connection of its own, checked every few seconds. A database outage
      // drops that session and the lock with it: take it again on a fresh connection, or another
      // process would soon take this one for dead and release its requests' credits.
      const held = yield* Deferred.make<void>()
      const holdLock = Effect.gen(function* () {
        const own = yield* sql.reserve
        yield* Effect.acquireRelease(
          own.executeRaw(lock("advisory_lock"), [id]),
          () => own.executeRaw(lock("advisory_unlock"), [id]).pipe(Effect.ignore)
        )
        yield* Deferred.succeed(held, undefined)
        // On the real clock whatever the service's: a keep-alive of a connection, which a test that
        // moves its clock a day on would otherwise run 86,400 times.
        yield* own.executeRaw("SELECT 1", []).pipe(Effect.repeat(Schedule.spaced("1 second")), Effect.withClock(Clock.make()))
      }).pipe(Effect.scoped)
      yield* Effect.forkScoped(holdLock.pipe(Effect.retry(Schedule.spaced("1 second"))))
      yield* Deferred.await(held)
      const lockIsFree = (other: string) =>
        Effect.gen(function* () {
          const connection = yield* sql.reserve
          const [row] = yield* connection.execute(lock("try_advisory_lock"), [other], undefined)
          const free = row?.held === true
          if (free) yield* connection.executeRaw(lock("advisory_unlock"), [other])
          return free
        }).pipe(Effect.scoped, Effect.orDie)
      // A live process that just lost its connection takes its lock again within a second or two:
      // only a lock still free a few seconds later means the process is gone.
      const isAlive = (other: string) =>
        lockIsFree(other).pipe(
          Effect.flatMap((free) => (free ? Effect.delay(lockIsFree(other), "3 seconds") : Effect.succeed(false))),
          Effect.map((free) => !free)
        )
      return { id, isAlive }
    }).pipe(Effect.orDie)
  )

  static readonly layer: Layer.Layer<Instance, never, SqlClient.SqlClient | AppConfig> = Layer.unwrapEffect(
    Effect.map(AppConfig, (config) => Option.isSome(config.databaseUrl) ? Instance.postgres : Instance.single)
  )
}
