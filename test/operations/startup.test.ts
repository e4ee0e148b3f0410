/**
 * Start-up refusals and the data folder's modes, with the service and the CLI as real processes:
 * what an operator sees when `API_KEY_SECRET` is too short or `DATA_DIR` belongs to another user,
 * and the folder's modes after the service ran (README "Configuration", "Operations").
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fs from "node:fs/promises"
import * as net from "node:net"
import * as path from "node:path"
import { looseModes } from "../support/fileModes.ts"
import { cli, cliOk, freePort, getTokens, serviceToEnd, startService, tempDataDir } from "../support/process.ts"

const timeout = 180_000

const KeyPrinted = Schema.parseJson(Schema.Struct({ key: Schema.String }))
const AccountPrinted = Schema.parseJson(Schema.Struct({ id: Schema.String }))

describe("start-up, as processes", () => {
  it.scopedLive("the data folder is created 0700 and every file in it is 0600 after a start, writes and a stop", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "new", "data")
      const env = { DATA_DIR: dataDir }
      // The CLI alone creates the folder and the database (the slow first open is not the service's start-up).
      const account = Schema.decodeUnknownSync(AccountPrinted)(yield* cliOk(env, "account", "create", "--init", "--name", "Ada", "--credits", "3"))
      expect((yield* looseModes(dataDir)).loose).toEqual([])
      const service = yield* startService(env)
      // Writes through the service (the CLI sends them to it): new rows, WAL, files PGlite makes as it goes.
      const { key } = Schema.decodeUnknownSync(KeyPrinted)(yield* cliOk(env, "key", "create", account.id))
      expect((yield* getTokens(service.url, key)).status).toBe(200)
      const running = yield* looseModes(dataDir)
      expect(running.loose).toEqual([])
      expect(running.count).toBeGreaterThan(900)
      expect((yield* service.stop("SIGTERM")).exitCode).toBe(0)
      expect((yield* looseModes(dataDir)).loose).toEqual([])
    }), timeout)

  it.scopedLive("an API_KEY_SECRET under 32 bytes stops the service and the CLI at start-up, saying why, not printing it", () =>
    Effect.gen(function* () {
      const secret = "only-twenty-six-bytes-long"
      const env = { DATA_DIR: yield* tempDataDir, API_KEY_SECRET: secret }
      const service = yield* serviceToEnd(env)
      expect(service.exitCode).toBe(1)
      expect(`${service.stdout}${service.stderr}`).toContain("API_KEY_SECRET must be at least 32 bytes")
      expect(`${service.stdout}${service.stderr}`).not.toContain(secret)
      const command = yield* cli(env, "account", "create", "--name", "Ada")
      expect(command).toMatchObject({ exitCode: 1, stdout: "" })
      expect(command.stderr).toContain("API_KEY_SECRET must be at least 32 bytes")
      expect(command.stderr).not.toContain(secret)
    }), timeout)

  it.scopedLive("a refused start is one error line in the configured format, with a message and the setting's reason", () =>
    Effect.gen(function* () {
      // At the highest level too: the refusal is the one line that is always shown.
      const refused = yield* serviceToEnd({ DATA_DIR: yield* tempDataDir, LOG_FORMAT: "json", LOG_LEVEL: "Fatal", PUBLIC_URL: "ftp://images.example.com" })
      expect(refused.exitCode).toBe(1)
      const lines = `${refused.stdout}${refused.stderr}`.split("\n").filter((line) => line !== "")
      // Every line is JSON, the refusal too (it was logfmt, from the runtime's default logger, with no message).
      const parsed = lines.map((line) => JSON.parse(line) as { message: unknown; logLevel: string; annotations: { reason?: string } })
      const errors = parsed.filter((line) => line.logLevel === "FATAL")
      expect(errors).toHaveLength(1)
      expect(errors[0]?.message).toBe("the service could not start")
      expect(errors[0]?.annotations.reason).toBe("PUBLIC_URL must be an http(s) URL without a user name, password, query or fragment, e.g. https://images.example.com")
    }), timeout)

  it.scopedLive("a port in use, or a data folder that is a file, stops the start with one line naming the setting, no stack", () =>
    Effect.gen(function* () {
      const reasonOf = (ended: { readonly stdout: string; readonly stderr: string }) =>
        `${ended.stdout}${ended.stderr}`.split("\n").filter((line) => line.includes('"FATAL"'))
          .map((line) => (JSON.parse(line) as { annotations: { reason?: string } }).annotations.reason)
      const port = yield* freePort
      const taken = net.createServer().listen(port, "127.0.0.1")
      yield* Effect.addFinalizer(() => Effect.sync(() => taken.close()))
      yield* Effect.promise(() => new Promise((listening) => taken.once("listening", listening)))
      const inUse = yield* serviceToEnd({ DATA_DIR: yield* tempDataDir, LOG_FORMAT: "json", HOST: "127.0.0.1", PORT: String(port) })
      expect([inUse.exitCode, ...reasonOf(inUse)]).toEqual([1, expect.stringMatching(new RegExp(`^could not listen on 127\\.0\\.0\\.1:${port} \\(HOST, PORT\\): `))])
      const file = path.join(yield* tempDataDir, "a-file")
      yield* Effect.promise(() => fs.writeFile(file, "x"))
      const notAFolder = yield* serviceToEnd({ DATA_DIR: file, LOG_FORMAT: "json" })
      expect([notAFolder.exitCode, ...reasonOf(notAFolder)])
        .toEqual([1, expect.stringMatching(new RegExp(`^the data folder ${file} cannot be used \\(EEXIST.*\\): set DATA_DIR to a writable folder`))])
    }), timeout)

  const root = process.getuid?.() === 0
  it.scopedLive.skipIf(!root)("a data folder of another user stops the service and the CLI, saying why, writing nothing in it", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDataDir, "data")
      yield* Effect.promise(async () => {
        await fs.mkdir(dataDir, { mode: 0o700 })
        await fs.chown(dataDir, 65534, 65534)
      })
      const env = { DATA_DIR: dataDir }
      const why = `the data folder ${dataDir} belongs to uid 65534, not to uid 0 that runs this process`
      const service = yield* serviceToEnd(env)
      expect(service.exitCode).toBe(1)
      expect(`${service.stdout}${service.stderr}`).toContain(why)
      // `--init`: without it the CLI stops sooner, as the folder holds no database yet.
      const command = yield* cli(env, "account", "create", "--init", "--name", "Ada")
      expect(command).toMatchObject({ exitCode: 1, stdout: "" })
      expect(command.stderr).toContain(`error: ${why}`)
      expect(yield* Effect.promise(() => fs.readdir(dataDir))).toEqual([])
    }), timeout)
  if (!root) describe.skip("a data folder of another user: needs root to chown one", () => it("skipped", () => {}))
})
