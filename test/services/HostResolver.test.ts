/**
 * The system resolver (src/services/HostResolver.ts) against a name server that never answers, in a
 * mount and network namespace of the test's own (`unshare`, as root): look-ups of names it holds
 * must not stall the decoding of images, which needs the same native threads as `getaddrinfo`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { HostResolver } from "../../src/services/HostResolver.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))
const canUnshare = Bun.spawnSync({ cmd: ["unshare", "--mount", "--net", "true"], stderr: "ignore" }).exitCode === 0

describe("the system resolver", () => {
  it.effect("reads /etc/hosts: localhost is a loopback address; a name nobody knows has none", () =>
    Effect.gen(function* () {
      const resolver = yield* HostResolver
      const localhost = yield* resolver.resolve("localhost")
      expect(localhost.map((found) => found.address)).toContain("127.0.0.1")
      expect(yield* resolver.resolve("no-such-name.invalid")).toEqual([])
    }))

  if (!canUnshare) {
    it.skip("needs `unshare --mount --net` (root, or user namespaces): not available here", () => {})
  } else {
    it.live("look-ups held by a name server that never answers leave the image decoder's threads free", () =>
      Effect.gen(function* () {
        const folder = fs.mkdtempSync(path.join(os.tmpdir(), "stalled-dns-"))
        const resolvConf = path.join(folder, "resolv.conf")
        fs.writeFileSync(resolvConf, "nameserver 127.0.0.1\n")
        const script = `ip link set lo up && mount --bind ${resolvConf} /etc/resolv.conf && exec "${process.execPath}" test/support/stalledNameServer.ts 8`
        const child = Bun.spawn({
          cmd: ["unshare", "--mount", "--net", "--propagation", "private", "sh", "-c", script],
          cwd: root,
          env: { PATH: process.env.PATH ?? "", HOME: os.homedir(), UV_THREADPOOL_SIZE: "4" },
          stdout: "pipe",
          stderr: "inherit"
        })
        const printed = yield* Effect.promise(() => new Response(child.stdout).text())
        fs.rmSync(folder, { recursive: true, force: true })
        // With `getaddrinfo`, the decode waited for look-ups to give up and free their threads.
        expect(JSON.parse(printed)).toEqual({ endedBeforeDecode: 0 })
      }), 30_000)
  }
})
