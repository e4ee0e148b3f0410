/**
 * Scan bombs: flat 10,000 x 10,000 progressive JPEGs of 700 scans (grey) and 2,080 (colour), with
 * and without their end marker, generated with libjpeg-turbo's `cjpeg` (libjpeg-turbo-progs). Each
 * is sent alone: status, time to answer and how far the service's peak memory rose above its
 * resident size before the request. Then the two cut-off ones together with a 64 x 48 PNG sent
 * 200 ms after them: how long the small image waited. Service only (embedded database).
 *
 *   bun scripts/bench/scanBombs.ts               # the working tree
 *   BENCH_REV=<commit> bun scripts/bench/scanBombs.ts
 */
import sharp from "sharp"
import { cjpegMissing, scanBombJpeg } from "../../test/support/hostileImages.ts"
import { startFakeOpenAi } from "./lib/fakeOpenAi.ts"
import { post, sleep, uploadOf } from "./lib/load.ts"
import { footer, header } from "./lib/report.ts"
import { memoryOf, resetPeak } from "./lib/rss.ts"
import { kib, mib, ms, table } from "./lib/stats.ts"
import { deadline, startTarget } from "./lib/targets.ts"

deadline(15 * 60_000, "scan bombs bench")
if (cjpegMissing) throw new Error("cjpeg is missing: apt-get install libjpeg-turbo-progs")

header("Scan bombs: time to answer, peak memory, and a small image beside them", "bun scripts/bench/scanBombs.ts")

const bombs = [false, true].flatMap((colour) =>
  [true, false].map((endMarker) => ({
    name: `${colour ? "colour, 2,080" : "grey, 700"} scans${endMarker ? "" : ", no EOI"}`,
    endMarker,
    bytes: scanBombJpeg({ side: 10_000, colour, scans: colour ? 2080 : 700, endMarker })
  }))
)
const small = new Uint8Array(await sharp({ create: { width: 64, height: 48, channels: 3, background: "#336699" } }).png().toBuffer())

const model = startFakeOpenAi()
const target = await startTarget("service", model.baseUrl)
try {
  await post(target, uploadOf(small))
  const rows: Array<ReadonlyArray<string>> = []
  for (const bomb of bombs) {
    const before = memoryOf(target.pid).rssBytes
    resetPeak(target.pid)
    const sample = await post(target, uploadOf(bomb.bytes))
    rows.push([bomb.name, kib(bomb.bytes.length), String(sample.status), ms(sample.ms), mib(memoryOf(target.pid).hwmBytes - before)])
  }
  console.log(table(["file", "size", "status", "time to answer", "peak RSS growth"], rows), "\n")

  const cut = bombs.filter((bomb) => !bomb.endMarker)
  const answers = cut.map((bomb) => post(target, uploadOf(bomb.bytes)))
  await sleep(200)
  const beside = await post(target, uploadOf(small))
  const bombSamples = await Promise.all(answers)
  console.log(table(["request", "status", "time to answer"], [
    ...cut.map((bomb, i) => [bomb.name, String(bombSamples[i]?.status), ms(bombSamples[i]?.ms ?? Number.NaN)]),
    ["64 x 48 PNG, sent 200 ms after them", String(beside.status), ms(beside.ms)]
  ]))
} finally {
  await target.stop()
  await model.stop()
  footer()
}
