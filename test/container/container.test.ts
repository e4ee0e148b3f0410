/**
 * The image as an operator runs it (`docker run`, README "Containers"): health, readiness, the
 * operator CLI inside the container, a describe, the data volume across a restart, the user it
 * runs as. Needs a Docker engine and the built image: `npm run test:container` (skipped otherwise).
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { noiseImage } from "../support/hostileImages.ts"
import { describeAt } from "../support/liveService.ts"
import {
  accountWithKey,
  admin,
  type Container,
  containerSkipReason,
  containerTests,
  creditsOf,
  dockerOk,
  healthy,
  image,
  readyz,
  runContainer,
  volume
} from "../support/docker.ts"

const timeout = 240_000

/** Each process of the container: `<uid> <command>` (from /proc, the image has no ps). */
const processes = (container: Container) =>
  dockerOk("exec", container.name, "sh", "-c", "for p in /proc/[0-9]*; do echo \"$(awk '/^Uid:/ {print $2}' $p/status) $(tr '\\0' ' ' < $p/cmdline)\"; done")

/** The service on a data volume, with the offline describer: shared by the tests below, in order. */
class Offline extends Context.Tag("Offline")<Offline, { readonly container: Container; readonly customer: { readonly accountId: string; readonly key: string } }>() {}
const OfflineLive = Layer.scoped(
  Offline,
  Effect.gen(function* () {
    const data = yield* volume
    const container = yield* runContainer({ DESCRIBER: "offline" }, ["-v", `${data}:/data`])
    yield* healthy(container)
    return { container, customer: yield* accountWithKey(container, 3) }
  })
)

if (containerTests) {
  layer(OfflineLive, { timeout, excludeTestServices: true })(`the image ${image}, NODE_ENV=production, DESCRIBER=offline`, (it) => {
    it.effect("becomes healthy and /readyz answers 200", () =>
      Effect.gen(function* () {
        const { container } = yield* Offline
        expect(yield* container.inspect("{{.State.Health.Status}}")).toBe("healthy")
        expect(yield* readyz(container)).toBe(200)
      }))

    it.effect("runs as a user other than root, and its data folder is closed to other users", () =>
      Effect.gen(function* () {
        const { container } = yield* Offline
        const running = (yield* processes(container)).split("\n").filter((line) => line.includes("bun"))
        expect(running.length).toBeGreaterThan(0)
        expect(running.filter((line) => line.startsWith("0 "))).toEqual([])
        expect(yield* dockerOk("exec", container.name, "stat", "-c", "%U %a", "/data")).toBe("bun 700")
      }))

    it.effect("nothing inside the data folder is readable by group or others (folders 0700, files 0600)", () =>
      Effect.gen(function* () {
        const { container } = yield* Offline
        expect(yield* dockerOk("exec", container.name, "find", "/data", "-perm", "/044")).toBe("")
      }))

    it.effect("the operator CLI inside the container made the account; a describe with a generated image uses one credit", () =>
      Effect.gen(function* () {
        const { container, customer } = yield* Offline
        const answer = yield* describeAt(container.url, customer.key, { image: yield* Effect.promise(() => noiseImage("jpeg", 7, 320, 240)) })
        expect(answer.status).toBe(200)
        expect(answer.body).toMatchObject({ title: expect.any(String), alternativeText: expect.any(String) })
        expect(yield* creditsOf(container.url, customer.key)).toEqual({ status: 200, credits: 2 })
        expect(JSON.parse(yield* admin(container, "credits", "add", customer.accountId, "5"))).toMatchObject({ credits: 7 })
      }))

    it.effect("the data volume keeps the account, its key and its balance across a restart", () =>
      Effect.gen(function* () {
        const { container, customer } = yield* Offline
        yield* dockerOk("restart", container.name)
        yield* healthy(container)
        expect(yield* creditsOf(container.url, customer.key)).toEqual({ status: 200, credits: 7 })
      }))

    it.effect("killed (SIGKILL, as the OOM killer or an expired grace period does), it starts again on the same volume", () =>
      Effect.gen(function* () {
        const { container, customer } = yield* Offline
        for (let round = 0; round < 3; round++) {
          yield* dockerOk("kill", container.name)
          yield* dockerOk("start", container.name)
          yield* healthy(container)
        }
        expect(yield* creditsOf(container.url, customer.key)).toEqual({ status: 200, credits: 7 })
      }))
  })

} else {
  describe.skip(containerSkipReason, () => it("the image, run by a Docker engine", () => {}))
}
