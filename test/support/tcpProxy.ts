/**
 * A TCP proxy on a loopback port in front of a server (PostgreSQL), so a test can take the server
 * away from one client without touching the server others share:
 * - `stop`: as if the server went down: open connections are reset, new ones refused;
 * - `blackhole`: as if the network dropped every packet: connections are accepted and bytes are
 *   taken, but nothing is delivered either way;
 * - `restore`: the path is back; a blackhole delivers what it held, as retransmission would;
 * - `cutAnswerTo(marker)`: the next statement whose text holds `marker` reaches the server, but its
 *   answer does not come back: the connection is cut when the answer arrives (after the server
 *   has committed: PostgreSQL sends an extended-protocol answer at its Sync, once committed).
 */
import { Effect } from "effect"
import * as net from "node:net"
import { freshPostgresUrl } from "./database.ts"

export interface TcpProxy {
  readonly port: number
  readonly stop: Effect.Effect<void>
  readonly blackhole: Effect.Effect<void>
  readonly restore: Effect.Effect<void>
  readonly cutAnswerTo: (marker: string) => Effect.Effect<void>
  /** How many answers `cutAnswerTo` has cut so far. */
  readonly answersCut: Effect.Effect<number>
}

type State = "open" | "stopped" | "blackhole"

/** One client connection and its upstream; bytes wait in `held` while the path is a blackhole. */
interface Link {
  readonly client: net.Socket
  upstream: net.Socket | undefined
  readonly held: { toUpstream: Array<Buffer>; toClient: Array<Buffer> }
  /** The statement just sent is the one whose answer is to be cut. */
  cutAnswer: boolean
}

export const tcpProxy = (target: { readonly host: string; readonly port: number }) =>
  Effect.acquireRelease(
    Effect.async<{ readonly proxy: TcpProxy; readonly close: () => Promise<void> }>((resume) => {
      let state: State = "open"
      const links = new Set<Link>()
      let cutMarker: string | undefined
      let cuts = 0

      const drop = (link: Link) => {
        links.delete(link)
        link.client.destroy()
        link.upstream?.destroy()
      }

      const connectUpstream = (link: Link) => {
        const upstream = net.connect({ host: target.host, port: target.port })
        link.upstream = upstream
        upstream.on("data", (data: Buffer) => {
          if (link.cutAnswer) {
            cuts += 1
            return drop(link)
          }
          if (state === "open") link.client.write(data)
          else link.held.toClient.push(data)
        })
        upstream.on("error", () => drop(link))
        upstream.on("close", () => drop(link))
        for (const data of link.held.toUpstream.splice(0)) upstream.write(data)
      }

      const server = net.createServer((client) => {
        if (state === "stopped") return client.resetAndDestroy()
        const link: Link = { client, upstream: undefined, held: { toUpstream: [], toClient: [] }, cutAnswer: false }
        links.add(link)
        client.on("data", (data: Buffer) => {
          if (cutMarker !== undefined && data.includes(cutMarker)) {
            cutMarker = undefined
            link.cutAnswer = true
          }
          if (state === "open" && link.upstream !== undefined) link.upstream.write(data)
          else link.held.toUpstream.push(data)
        })
        client.on("error", () => drop(link))
        client.on("close", () => drop(link))
        if (state === "open") connectUpstream(link)
      })

      const listen = (port: number) =>
        new Promise<number>((resolve, reject) => {
          server.once("error", reject)
          server.listen(port, "127.0.0.1", () => {
            server.off("error", reject)
            const address = server.address()
            resolve(typeof address === "object" && address !== null ? address.port : 0)
          })
        })

      void listen(0).then((port) => {
        const proxy: TcpProxy = {
          port,
          stop: Effect.promise(() => {
            state = "stopped"
            for (const link of [...links]) {
              link.client.resetAndDestroy()
              drop(link)
            }
            return new Promise<void>((resolve) => server.close(() => resolve()))
          }),
          blackhole: Effect.sync(() => {
            state = "blackhole"
          }),
          cutAnswerTo: (marker) =>
            Effect.sync(() => {
              cutMarker = marker
            }),
          answersCut: Effect.sync(() => cuts),
          restore: Effect.promise(async () => {
            const previous = state
            state = "open"
            if (previous === "stopped") await listen(port)
            for (const link of links) {
              if (link.upstream === undefined) connectUpstream(link)
              else for (const data of link.held.toUpstream.splice(0)) link.upstream.write(data)
              for (const data of link.held.toClient.splice(0)) link.client.write(data)
            }
          })
        }
        const close = () =>
          new Promise<void>((resolve) => {
            for (const link of [...links]) drop(link)
            if (!server.listening) return resolve()
            server.close(() => resolve())
          })
        resume(Effect.succeed({ proxy, close }))
      })
    }),
    ({ close }) => Effect.promise(close)
  ).pipe(Effect.map(({ proxy }) => proxy))

/** A fresh database of the test server behind a proxy of its own: its direct URL, the proxy, and the URL through it. */
export const proxiedFreshPostgres = (serverUrl: string) =>
  Effect.gen(function* () {
    const fresh = yield* freshPostgresUrl(serverUrl)
    const direct = new URL(fresh.url)
    const proxy = yield* tcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) })
    const through = new URL(fresh.url)
    through.port = String(proxy.port)
    return { url: fresh.url, proxy, through }
  })
