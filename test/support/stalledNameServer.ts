/**
 * Run in a namespace of its own (test/services/HostResolver.test.ts): a name server on this
 * namespace's loopback that never answers, `lookups` look-ups through the service's resolver of
 * names only it could answer, then an image decode. Prints how many look-ups had ended when the
 * decode did: none, when look-ups hold none of the threads that decode images.
 */
import { Effect } from "effect"
import sharp from "sharp"
import { HostResolver } from "../../src/services/HostResolver.ts"

const lookups = Number(process.argv[2] ?? 8)
// Takes every question, answers none.
await Bun.udpSocket({ hostname: "127.0.0.1", port: 53, socket: { data: () => {} } })

let ended = 0
for (let i = 0; i < lookups; i++) {
  const lookup = Effect.flatMap(HostResolver, (resolver) => resolver.resolve(`stalled-${i}.example.org`))
  void Effect.runPromise(lookup).finally(() => ended++)
}
await Bun.sleep(300)
const image = await sharp({ create: { width: 1200, height: 900, channels: 3, background: "#c83" } }).jpeg().toBuffer()
await sharp(image).resize(500).raw().toBuffer()
process.stdout.write(JSON.stringify({ endedBeforeDecode: ended }))
process.exit(0)
