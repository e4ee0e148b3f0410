/**
 * Workers through a database outage (PostgreSQL behind the test's own proxy): what they log while
 * it is stopped 1.5 s and back 1.5 s, each message once per line.
 */
import { Effect, Layer, Logger } from "effect"
import type { TcpProxy } from "./tcpProxy.ts"

export const loggedThroughOutage = <A, E>(proxy: TcpProxy, workers: (logger: Layer.Layer<never>) => Layer.Layer<A, E>) =>
  Effect.gen(function* () {
    const logged: Array<string> = []
    const collecting = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => {
      logged.push(String(Array.isArray(message) ? message[0] : message))
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
