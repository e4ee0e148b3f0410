/** Batches in tests (README, "Batches"): a loopback image server, the app with batch workers, and a JSON client. */
import http from "node:http"
import type { AddressInfo } from "node:net"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Duration, Effect, Layer, Ref, Schedule } from "effect"
import { servicesWith } from "../../src/app.ts"
import { parseAllowList } from "../../src/domain/publicAddress.ts"
import { batchWorkers } from "../../src/services/BatchWorkers.ts"
import type { Describer } from "../../src/services/Describer.ts"
import { HostResolver } from "../../src/services/HostResolver.ts"
import { ImageFetcher } from "../../src/services/ImageFetcher.ts"
import { Images } from "../../src/services/Images.ts"
import { UploadBudget } from "../../src/services/UploadBudget.ts"
import { type QueuedWebhook, Webhooks } from "../../src/services/Webhooks.ts"
import type { Backend } from "./database.ts"
import { jpeg } from "./describe.ts"

/** Serves `jpeg` at every path under `/photo`, a 404 elsewhere, on loopback; `hits` counts each path. */
export const startImageServer = async () => {
  const hits = new Map<string, number>()
  const server = http.createServer((request, response) => {
    const path = request.url ?? "/"
    hits.set(path, (hits.get(path) ?? 0) + 1)
    if (!path.startsWith("/photo")) return response.writeHead(404).end("no such image")
    response.writeHead(200, { "content-type": "image/jpeg", "content-length": jpeg.length })
    response.end(jpeg)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    hits,
    close: () => {
      server.closeAllConnections()
      server.close()
    }
  }
}

/** Webhook events the code queued, for tests (Webhooks.recording). */
export const queuedWebhooks = Effect.runSync(Ref.make<ReadonlyArray<QueuedWebhook>>([]))

/** The settings of the tests' workers: `workers` fibers, at most `perAccount` items of an account, looking every 20 ms. */
export const testWorkers = (workers: number, perAccount = 2) => batchWorkers({ workers, perAccount, poll: Duration.millis(20) })

/** The services with batch workers over `backend`; images come from the loopback server as `images.test`. */
export const batchServicesOn = (backend: Backend, describer: Layer.Layer<Describer>, workers = 3) => {
  const services = Layer.mergeAll(
    servicesWith(Webhooks.recording(queuedWebhooks)),
    Images.layer,
    UploadBudget.layer,
    describer,
    Layer.succeed(HostResolver, HostResolver.fixed({ "images.test": ["127.0.0.1"] })),
    Layer.succeed(ImageFetcher, ImageFetcher.make({ allow: parseAllowList("images.test").allow, timeout: Duration.seconds(5) }))
  ).pipe(Layer.provideMerge(backend.layer))
  // With none, no worker layer at all: a test's own would otherwise take this one's items for lost ones.
  return workers === 0 ? services : testWorkers(workers).pipe(Layer.provideMerge(services))
}

export interface Seen {
  readonly status: number
  readonly location: string | undefined
  /** `Idempotent-Replayed`. */
  readonly replayed: string | undefined
  readonly body: unknown
  /** The body as sent. */
  readonly text: string
}

/** A JSON request to the test server; what the client sees. */
export const call = (
  method: "GET" | "POST" | "DELETE",
  path: string,
  options: { readonly key?: string; readonly body?: string; readonly headers?: Readonly<Record<string, string>> } = {}
) =>
  Effect.flatMap(HttpClient.HttpClient, (client) =>
    client.execute(HttpClientRequest.make(method)(path).pipe(
      options.body === undefined ? (r) => r : HttpClientRequest.bodyText(options.body, "application/json"),
      options.key === undefined ? (r) => r : HttpClientRequest.bearerToken(options.key),
      HttpClientRequest.setHeaders(options.headers ?? {})
    ))).pipe(
      Effect.flatMap((response) =>
        Effect.map(response.text, (text): Seen => ({
          status: response.status,
          location: response.headers["location"],
          replayed: response.headers["idempotent-replayed"],
          body: JSON.parse(text),
          text
        }))),
      Effect.orDie
    )

interface BatchBody {
  readonly id: string
  readonly status: string
  readonly completedAt: string | null
  readonly counts: Record<string, number>
  readonly items: ReadonlyArray<Record<string, unknown>>
}

/** The batch once it has ended (`completedAt` set), looking every 50 ms. */
export const ended = (id: string, key: string, timeout: Duration.DurationInput = "60 seconds") =>
  call("GET", `/api/batches/${id}`, { key }).pipe(
    Effect.map((seen) => seen.body as BatchBody),
    Effect.filterOrFail((batch) => batch.completedAt !== null, () => new Error(`batch ${id} has not ended`)),
    Effect.retry(Schedule.spaced("50 millis")),
    Effect.timeoutFail({ duration: timeout, onTimeout: () => new Error(`batch ${id} did not end`) }),
    Effect.orDie
  )
