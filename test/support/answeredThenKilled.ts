/**
 * `bun test/support/answeredThenKilled.ts <folder> <charges> <failures>`: on the embedded database
 * in <folder>, an account, then that many describes' credits settled as charges, then as failures
 * (each "answered" once `withCredit` returns), then prints `answered` and waits to be killed.
 * A child process of test/db/durability.test.ts, which kills it with SIGKILL.
 */
import { Effect, Layer } from "effect"
import * as Database from "../../src/db/Database.ts"
import { Credits } from "../../src/services/Credits.ts"
import { testSettingsOrDie } from "./config.ts"
import { fundedRequests } from "./creditRequests.ts"
import { servicesOn } from "./services.ts"

const [dataDir, charges = "0", failures = "0"] = process.argv.slice(2)
const backend = { name: "PGlite in a folder", layer: Database.layerPglite(dataDir).pipe(Layer.orDie, Layer.merge(testSettingsOrDie())) }

const answered = Effect.gen(function* () {
  const credits = yield* Credits
  const request = yield* fundedRequests(1_000)
  for (let i = 0; i < Number(charges); i++) yield* credits.withCredit(request(200), Effect.succeed("described"))
  for (let i = 0; i < Number(failures); i++) yield* Effect.exit(credits.withCredit(request(400), Effect.fail("not an image")))
  process.stdout.write("answered\n")
  return yield* Effect.never
})

Effect.runFork(answered.pipe(Effect.provide(servicesOn(backend))))
