/**
 * A service process whose PostgreSQL is reached through a TCP proxy owned by the test (the machine's
 * server is shared with other suites and stays up), so a test can take the database away from this
 * process alone; and a model whose answers the test can hold back.
 */
import { Effect } from "effect"
import { answerRequested, fakeOpenAi, type Reply } from "./fakeOpenAi.ts"
import type { Store } from "./liveService.ts"
import { startService } from "./process.ts"
import { tcpProxy } from "./tcpProxy.ts"

/** The service on `store`, its database reached through a proxy; a model whose answers wait for `gate`. */
export const serviceBehindProxy = (store: Store) =>
  Effect.gen(function* () {
    const direct = new URL(store.env.DATABASE_URL ?? "")
    const proxy = yield* tcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
    const viaProxy = new URL(direct)
    viaProxy.port = String(proxy.port)
    let gate: Promise<void> = Promise.resolve()
    const gated: Reply = async (signal, body) => {
      await gate
      return answerRequested(signal, body)
    }
    const model = yield* fakeOpenAi([gated])
    const service = yield* startService({ ...store.env, DATABASE_URL: viaProxy.toString(), OPENAI_BASE_URL: model.url })
    return {
      proxy,
      model,
      service,
      /** Model answers wait until the returned function is called. */
      holdAnswers: () => {
        let open: () => void = () => {}
        gate = new Promise<void>((resolve) => (open = resolve))
        return open
      }
    }
  })
