/**
 * A webhook receiver on loopback for the delivery tests: a path per behaviour, and every request
 * it gets (headers and body as received), so tests verify signatures with the reference library.
 */
import http from "node:http"
import type { AddressInfo } from "node:net"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface Received {
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: string
}

const receiver = Effect.acquireRelease(
  Effect.async<{ readonly server: http.Server; readonly received: Array<Received>; readonly base: string }>((resume) => {
    const received: Array<Received> = []
    const server = http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const url = new URL(request.url ?? "/", "http://receiver")
        const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]))
        received.push({ path: url.pathname, headers, body: Buffer.concat(chunks).toString("utf8") })
        const seen = received.filter((r) => r.path === url.pathname).length
        const answer = (status: number, body = "", extra: Record<string, string> = {}) => {
          response.writeHead(status, { "content-type": "text/plain", ...extra })
          response.end(body)
        }
        const [, behaviour] = url.pathname.split("/")
        if (behaviour === "flaky") return answer(seen <= 2 ? 500 : 200, seen <= 2 ? "try again later" : "ok")
        if (behaviour === "redirect") return answer(302, "", { location: url.pathname.replace("/redirect/", "/ok/") })
        if (behaviour === "teapot") return answer(418, "x".repeat(10_000))
        if (behaviour === "stalled") {
          // A 200 whose body never ends: 10 of the 100 bytes announced.
          response.writeHead(200, { "content-type": "text/plain", "content-length": "100" })
          return response.write("got it, th")
        }
        setTimeout(() => answer(200, "thanks"), Number(url.searchParams.get("hold") ?? 0))
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({ server, received, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })))
  }),
  ({ server }) => Effect.promise(() => new Promise<void>((done) => server.close(() => done())))
).pipe(Effect.map(({ base, received }) => ({ base, received })))

/**
 * `/ok/...` answers 200 (after `?hold=ms`), `/flaky/...` 500 twice then 200, `/redirect/...` a
 * 302 to `/ok/...`, `/teapot/...` a 418 with a body longer than the excerpt kept, `/stalled/...` a
 * 200 whose body never ends. The events
 * earlier tests on the same database left pending are set aside first, so what a test delivers
 * is its own.
 */
export const webhookReceiver = Effect.zipRight(
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE webhook_events SET state = 'abandoned' WHERE state = 'pending'`).pipe(Effect.orDie),
  receiver
)
