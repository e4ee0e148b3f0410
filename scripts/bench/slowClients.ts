/**
 * How many slow clients the service withstands while `/healthz` still answers (README, Slow
 * clients). In steps of more and more clients over loopback, each opens a connection and posts a
 * dashboard log-in announcing 16,000 bytes, then sends one byte a second: the slow client of the
 * issue, a little faster, so none is idle long enough to be closed for it. While they are held
 * (within FORM_TIMEOUT_MS, which cuts them off after 10 s) `/healthz` is asked every 200 ms; the
 * step passes when every probe is answered within 2 s. Then every client is let go, and the next
 * step begins. The bench stops after the first failing step or the last one.
 *
 * The service alone, not the baseline: what is measured is how the service holds connections, and
 * its limit of open files (Bun raises the soft limit to the hard one; each client costs one).
 *
 *   bun scripts/bench/slowClients.ts [--quick]
 */
import * as fs from "node:fs"
import * as net from "node:net"
import { startFakeOpenAi } from "./lib/fakeOpenAi.ts"
import { probeHealthz } from "./lib/healthz.ts"
import { sleep } from "./lib/load.ts"
import { footer, header, quick, verdict } from "./lib/report.ts"
import { memoryOf } from "./lib/rss.ts"
import { mib, ms, percentile, table } from "./lib/stats.ts"
import { deadline, startService } from "./lib/targets.ts"

deadline(5 * 60_000, "slow clients bench")

const steps = quick ? [250, 1000] : [250, 500, 1000, 2000, 4000, 8000]
/** Below FORM_TIMEOUT_MS (10 s): every client is still held while the probes run. */
const holdMs = 6_000
const probeEveryMs = 200
const probeTimeoutMs = 2_000
/** Connections are opened in batches this large, so the bench's own event loop keeps up. */
const batch = 250
const formHead =
  "POST /dashboard/login HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: 16000\r\n\r\n"

interface Step {
  readonly clients: number
  readonly connected: number
  /** Connections the service closed while the clients were still sending. */
  readonly closedEarly: number
  readonly probes: number
  readonly answered: number
  readonly latencies: ReadonlyArray<number>
  readonly rssBytes: number
}

/** The service's limit of open files, from `/proc/<pid>/limits`. */
const openFileLimit = (pid: number): string =>
  /^Max open files\s+(\S+)\s+(\S+)/m.exec(fs.readFileSync(`/proc/${pid}/limits`, "utf8"))?.slice(1).join(" soft, ") + " hard"

const openClient = (port: number, counts: { connected: number; closedEarly: number }, done: () => boolean) =>
  new Promise<net.Socket>((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port })
    socket.on("error", () => {})
    socket.on("close", () => {
      if (!done()) counts.closedEarly++
    })
    socket.on("connect", () => {
      counts.connected++
      socket.write(`${formHead}e`)
      resolve(socket)
    })
    // Refused or never accepted: counted as not connected.
    setTimeout(() => resolve(socket), 5_000)
  })

const runStep = async (url: string, port: number, pid: number, clients: number): Promise<Step> => {
  const counts = { connected: 0, closedEarly: 0 }
  let done = false
  const sockets: Array<net.Socket> = []
  for (let opened = 0; opened < clients; opened += batch) {
    const size = Math.min(batch, clients - opened)
    sockets.push(...(await Promise.all(Array.from({ length: size }, () => openClient(port, counts, () => done)))))
  }
  const trickle = setInterval(() => {
    for (const socket of sockets) if (!socket.destroyed) socket.write("e")
  }, 1_000)
  const latencies: Array<number> = []
  let probes = 0
  const until = performance.now() + holdMs
  while (performance.now() < until) {
    probes++
    const latency = await probeHealthz(url, probeTimeoutMs)
    if (latency !== undefined) latencies.push(latency)
    await sleep(probeEveryMs)
  }
  const rssBytes = memoryOf(pid).rssBytes
  done = true
  clearInterval(trickle)
  for (const socket of sockets) socket.destroy()
  // Let the service see every close before the next step.
  await sleep(2_000)
  return { clients, connected: counts.connected, closedEarly: counts.closedEarly, probes, answered: latencies.length, latencies, rssBytes }
}

header("Slow clients held while /healthz answers", `bun scripts/bench/slowClients.ts${quick ? " --quick" : ""}`)

const model = startFakeOpenAi()
const target = await startService(model.baseUrl)
const results: Array<Step> = []
try {
  const port = Number(new URL(target.url).port)
  console.log(`service ${target.url}, open files: ${openFileLimit(target.pid)}, idle RSS ${mib(memoryOf(target.pid).rssBytes)}\n`)
  for (const clients of steps) {
    const step = await runStep(target.url, port, target.pid, clients)
    results.push(step)
    console.error(`${clients} slow clients: ${step.answered}/${step.probes} probes answered`)
    if (step.answered < step.probes) break
  }
} finally {
  await target.stop()
  await model.stop()
}

console.log(table(
  ["slow clients", "connected", "closed early", "/healthz answered", "p50", "max", "service RSS"],
  results.map((step) => [
    String(step.clients),
    String(step.connected),
    String(step.closedEarly),
    `${step.answered}/${step.probes}`,
    ms(percentile(step.latencies, 50)),
    ms(Math.max(...step.latencies)),
    mib(step.rssBytes)
  ])
))
const withstood = Math.max(0, ...results.filter((step) => step.answered === step.probes && step.connected === step.clients).map((step) => step.clients))
console.log(`\nwithstood: ${withstood} slow clients held at once with every /healthz probe answered within ${probeTimeoutMs / 1000} s`)
verdict("slow clients withstood", String(withstood), "at least 1000", withstood >= 1000)
footer()
