/**
 * Benchmark 3 (and its line of benchmark 5): the early 413. A request with a valid key announces
 * a 50 MB body (Content-Length: 52,428,800); spec §4.1 check 3 says it is refused before the
 * upload is read. Raw HTTP/1.1 over a loopback socket, two ways:
 *
 * - head first: the head is sent, then nothing for up to 2 s. An answer in that window was given
 *   having read 0 body bytes, exactly (none existed). Only after the window does the client send
 *   the body, as fast as the socket takes it.
 * - streaming: head and body at once, as fast as the socket takes them, as a real client does.
 *   "sent before the answer" counts the body bytes the socket had accepted when the answer
 *   arrived: an upper bound of what the server read (the kernel buffers part of it). One more
 *   few streaming exchanges run with strace attached to the server, counting the bytes its
 *   socket reads returned: what it really read (head included, subtracted here). It varies with
 *   timing (how much arrived before the answer), so the largest counts.
 *
 *   bun scripts/bench/early413.ts [--quick]
 */
import * as net from "node:net"
import { startFakeOpenAi } from "./lib/fakeOpenAi.ts"
import { sleep } from "./lib/load.ts"
import { footer, header, quick, verdict } from "./lib/report.ts"
import { bytes, kib, mib, ms, percentile, ratio, table } from "./lib/stats.ts"
import { traceSocketReads } from "./lib/strace.ts"
import { deadline, startTarget, type Target, type TargetName, targetNames } from "./lib/targets.ts"

deadline(10 * 60_000, "early 413 bench")

const announced = 50 * 1024 * 1024
const silentMs = 2_000
const repeats = quick ? 3 : 10
const piece = new Uint8Array(64 * 1024)

interface Exchange {
  readonly status: number
  /** From the head handed to the socket to the end of the answer's head. */
  readonly answerMs: number
  /** Body bytes the socket had accepted when the answer arrived. */
  readonly sentBeforeAnswer: number
  /** Body bytes the socket accepted before the server closed the connection (or 5 s after the answer). */
  readonly sentInAll: number
  /** The server closed the connection after answering. */
  readonly closed: boolean
}

const boundary = "----bench-early-413"
const headOf = (target: Target) =>
  [
    "POST /api/describe HTTP/1.1",
    "host: 127.0.0.1",
    `authorization: ${target.authorization}`,
    `content-type: multipart/form-data; boundary=${boundary}`,
    `content-length: ${announced}`,
    "",
    ""
  ].join("\r\n")

const encoder = new TextEncoder()
/** The body: a well-formed form whose image part fills the announced length (so a server that reads it all can parse it). */
const bodyStart = encoder.encode(
  `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`
)
const bodyEnd = encoder.encode(`\r\n--${boundary}--\r\n`)

function* bodyPieces(): Generator<Uint8Array> {
  yield bodyStart
  let filled = bodyStart.length
  const fillTo = announced - bodyEnd.length
  while (filled < fillTo) {
    const n = Math.min(piece.length, fillTo - filled)
    yield n === piece.length ? piece : piece.subarray(0, n)
    filled += n
  }
  yield bodyEnd
}

const exchange = (target: Target, mode: "head first" | "streaming"): Promise<Exchange> =>
  new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port: Number(new URL(target.url).port) })
    socket.setNoDelay(true)
    let headSentAt = 0
    let answeredAt = 0
    let status = 0
    let sent = 0
    let sentBeforeAnswer = Number.NaN
    let received = ""
    let done = false
    let closed = false
    let sending = false

    const finish = () => {
      if (done) return
      done = true
      clearTimeout(limit)
      socket.destroy()
      resolve({ status, answerMs: answeredAt === 0 ? Number.NaN : answeredAt - headSentAt, sentBeforeAnswer, sentInAll: sent, closed })
    }
    // The whole exchange is bounded: 60 s.
    const limit = setTimeout(finish, 60_000)

    const sendBody = async () => {
      if (sending) return
      sending = true
      const write = (data: Uint8Array) =>
        new Promise<void>((written) => {
          if (socket.destroyed) return written()
          if (socket.write(data)) return written()
          const go = () => {
            socket.off("drain", go)
            socket.off("close", go)
            written()
          }
          socket.on("drain", go)
          socket.on("close", go)
        })
      for (const data of bodyPieces()) {
        if (socket.destroyed || done) return
        await write(data)
        if (!socket.destroyed) sent += data.length
      }
    }

    socket.on("data", (data: Buffer) => {
      received += data.toString("latin1")
      if (answeredAt === 0 && received.includes("\r\n\r\n")) {
        answeredAt = performance.now()
        sentBeforeAnswer = sent
        status = Number(received.slice(0, received.indexOf("\r\n")).split(" ")[1])
        // Wait for the server to close (or 5 s), counting what it still accepts meanwhile.
        setTimeout(finish, 5_000)
      }
    })
    socket.on("close", () => {
      closed = answeredAt !== 0
      finish()
    })
    socket.on("error", () => {})
    socket.on("connect", () => {
      socket.write(headOf(target), () => {
        headSentAt = performance.now()
        if (mode === "streaming") void sendBody()
        else setTimeout(() => answeredAt === 0 && void sendBody(), silentMs)
      })
    })
  })

header("Benchmark 3: the early 413 for a request announcing 50 MB", `bun scripts/bench/early413.ts${quick ? " --quick" : ""}`)

const model = startFakeOpenAi()
const results = new Map<TargetName, Map<string, ReadonlyArray<Exchange>>>()
const tracedRepeats = quick ? 2 : 5

interface Traced {
  readonly bodyRead: number
  readonly exchange: Exchange
}

/** Body bytes the server process read in streaming exchanges, by strace; undefined without strace. */
const traced = new Map<TargetName, ReadonlyArray<Traced> | undefined>()
for (const name of targetNames) {
  const target = await startTarget(name, model.baseUrl)
  const byMode = new Map<string, ReadonlyArray<Exchange>>()
  try {
    for (const mode of ["head first", "streaming"] as const) {
      const runs: Array<Exchange> = []
      await exchange(target, mode) // warm-up
      for (let i = 0; i < repeats; i++) runs.push(await exchange(target, mode))
      byMode.set(mode, runs)
      console.error(`${name} ${mode}: ${runs.map((r) => `${r.status} ${ms(r.answerMs)}`).join(", ")}`)
    }
    const runs: Array<Traced> = []
    for (let i = 0; i < tracedRepeats; i++) {
      const trace = await traceSocketReads(target.pid)
      if (trace === undefined) break
      const run = await exchange(target, "streaming")
      await sleep(200)
      const read = await trace.stop()
      runs.push({ bodyRead: read - new TextEncoder().encode(headOf(target)).length, exchange: run })
    }
    traced.set(name, runs.length === 0 ? undefined : runs)
  } finally {
    await target.stop()
  }
  results.set(name, byMode)
}
await model.stop()

const runsOf = (name: TargetName, mode: string) => results.get(name)?.get(mode) ?? []
const maxOf = (values: ReadonlyArray<number>) => {
  const finite = values.filter(Number.isFinite)
  return finite.length === 0 ? Number.NaN : Math.max(...finite)
}
const statuses = (runs: ReadonlyArray<Exchange>) => [...new Set(runs.map((r) => r.status))].join(", ")

for (const mode of ["head first", "streaming"] as const) {
  console.log(`\n### ${mode}\n`)
  console.log(table(
    ["server", "requests", "status", "no answer (reset)", "time to answer p50", "max", "body sent before the answer (max)", "body accepted before close (max)", "closed by server"],
    targetNames.map((name) => {
      const runs = runsOf(name, mode)
      const answer = runs.map((r) => r.answerMs).filter(Number.isFinite)
      return [name, String(runs.length), statuses(runs.filter((r) => r.status !== 0)), String(runs.filter((r) => r.status === 0).length),
        ms(percentile(answer, 50)), ms(maxOf(answer)),
        `${bytes(maxOf(runs.map((r) => r.sentBeforeAnswer)))} B`, mib(maxOf(runs.map((r) => r.sentInAll))),
        `${runs.filter((r) => r.closed).length} / ${runs.length}`]
    })
  ))
}

console.log("\n### streaming, with strace attached to the server: body bytes its socket reads returned\n")
console.log(table(
  ["server", "exchanges", "status", "time to answer p50 (traced, slower)", "body read by the server process, each exchange", "max", "body sent before the answer (max)"],
  targetNames.map((name) => {
    const t = traced.get(name)
    return t === undefined
      ? [name, "0", "n/a", "n/a", "n/a (strace unavailable)", "n/a", "n/a"]
      : [name, String(t.length), statuses(t.map((r) => r.exchange).filter((r) => r.status !== 0)),
        ms(percentile(t.map((r) => r.exchange.answerMs).filter(Number.isFinite), 50)),
        t.map((r) => bytes(r.bodyRead)).join(", "), `${bytes(maxOf(t.map((r) => r.bodyRead)))} B`,
        `${bytes(maxOf(t.map((r) => r.exchange.sentBeforeAnswer)))} B`]
  })
))

const serviceHead = runsOf("service", "head first")
const baselineHead = runsOf("baseline", "head first")
const serviceStream = runsOf("service", "streaming")
const baselineStream = runsOf("baseline", "streaming")
const p50 = (runs: ReadonlyArray<Exchange>) => percentile(runs.map((r) => r.answerMs).filter(Number.isFinite), 50)
const readMax = maxOf(serviceHead.map((r) => r.sentBeforeAnswer))
const tracedMax = (name: TargetName) => {
  const runs = traced.get(name)
  return runs === undefined ? undefined : maxOf(runs.map((r) => r.bodyRead))
}
const tracedService = tracedMax("service")
const tracedBaseline = tracedMax("baseline")
const answeredSilently = serviceHead.every((r) => r.status === 413 && r.answerMs < silentMs)

console.log("\n### Benchmark 5: service against the baseline (how many times better the service is)\n")
console.log(table(
  ["figure", "service", "baseline", "ratio (baseline / service)"],
  [
    ["time to answer, streaming client, p50", ms(p50(serviceStream)), ms(p50(baselineStream)), ratio(p50(baselineStream), p50(serviceStream))],
    ["body sent before the answer, streaming client, max", kib(maxOf(serviceStream.map((r) => r.sentBeforeAnswer))),
      kib(maxOf(baselineStream.map((r) => r.sentBeforeAnswer))),
      ratio(maxOf(baselineStream.map((r) => r.sentBeforeAnswer)), maxOf(serviceStream.map((r) => r.sentBeforeAnswer)))],
    ["body read before the answer, head-first client", `${bytes(readMax)} B`, `${bytes(maxOf(baselineHead.map((r) => r.sentBeforeAnswer)))} B`, "n/a (service read 0)"],
    ["body read by the server process, streaming client (strace, max)", `${bytes(tracedService ?? Number.NaN)} B`, `${bytes(tracedBaseline ?? Number.NaN)} B`,
      ratio(tracedBaseline ?? Number.NaN, tracedService ?? Number.NaN)]
  ]
))
console.log()
verdict("early 413: body read before answering a 50 MB announcement, head-first client", `${bytes(readMax)} B (answered in ${ms(p50(serviceHead))} p50 without the body)`,
  "<= 64 KiB", answeredSilently && readMax <= 64 * 1024)
if (tracedService !== undefined) {
  verdict("early 413: body read by the server process, streaming client (strace, largest of the exchanges)", `${bytes(tracedService)} B`, "<= 64 KiB", tracedService <= 64 * 1024)
}
footer()
