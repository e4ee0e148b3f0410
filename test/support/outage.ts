/**
 * Workers through a database outage (PostgreSQL behind the test's own proxy): what they log while
 * it is stopped 1.5 s and back 1.5 s, each message once per line, with the failure it reports.
 */
import { Effect, Layer, Logger } from "effect"
import { failureOf } from "../../src/services/outageLog.ts"
import type { TcpProxy } from "./tcpProxy.ts"

export interface Logged {
  readonly message: string
  /** The failure logged with it (outageLog.ts, `failureOf`), or "" when there is none. */
  readonly failure: string
}

export const loggedThroughOutage = <A, E>(proxy: TcpProxy, workers: (logger: Layer.Layer<never>) => Layer.Layer<A, E>) =>
  Effect.gen(function* () {
    const logged: Array<Logged> = []
    const collecting = Logger.replace(Logger.defaultLogger, Logger.make(({ message, cause }) => {
      logged.push({ message: String(Array.isArray(message) ? message[0] : message), failure: cause._tag === "Empty" ? "" : failureOf(cause) })
    }))
    yield* Effect.scoped(Effect.gen(function* () {
      yield* Layer.build(workers(collecting))
      yield* proxy.stop
      yield* Effect.sleep("1500 millis")
      yield* proxy.restore
      yield* Effect.sleep("1500 millis")
    }))
    return logged
  })

/** The failures logged with `message`, in order. */
export const failuresLoggedWith = (logged: ReadonlyArray<Logged>, message: string) =>
  logged.filter((line) => line.message === message).map((line) => line.failure)
