/**
 * The operator CLI and the service as real processes (README, Operator CLI): the CLI alone on the data folder,
 * the CLI beside a running service, restarts, crashes and stale locks. Each test has its own
 * data folder and port; every process is killed when its test ends.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted, Schema } from "effect"
import * as fs from "node:fs/promises"
import { networkInterfaces } from "node:os"
import * as path from "node:path"
import { usage } from "../../src/cli/parse.ts"
import { LockInfo } from "../../src/db/DataDirLock.ts"
import { freshPostgresUrl, postgresSkipReason, postgresUrl } from "../support/database.ts"
import type { Env } from "../support/process.ts"
import {
  canListenOn, cli, cliOk, endedProcessId, getTokens, serviceToEnd, startService, tempDataDir
} from "../support/process.ts"

const timeout = 180_000

const parseJson = Schema.decodeUnknownSync(Schema.parseJson())
const AccountPrinted = Schema.parseJson(Schema.Struct({ id: Schema.String }))
const KeyPrinted = Schema.parseJson(Schema.Struct({ id: Schema.String, key: Schema.String }))

/** An account with `credits` and a key for it, made with the CLI (which creates the embedded database: `--init`). */
const accountWithKey = (env: Env, credits: number) =>
  Effect.gen(function* () {
    const account = Schema.decodeUnknownSync(AccountPrinted)(
      yield* cliOk(env, "--init", "account", "create", "--name", "Ada", "--credits", String(credits))
    )
    const key = Schema.decodeUnknownSync(KeyPrinted)(yield* cliOk(env, "key", "create", account.id, "--name", "CMS plugin"))
    return { accountId: account.id, key: key.key }
  })

/** `credits add` with the CLI; the balance it prints. */
const addCredits = (env: Env, accountId: string, amount: number) =>
  cliOk(env, "credits", "add", accountId, String(amount)).pipe(Effect.map(parseJson))

/** `GET /api/tokens` with the key: a 200 for the account with exactly `credits`; its body. */
const expectBalance = (url: string, key: string, accountId: string, credits: number) =>
  Effect.gen(function* () {
    const seen = yield* getTokens(url, key)
    expect(seen).toMatchObject({ status: 200, body: { success: true, user: { id: accountId, credits } } })
    return seen.body
  })

const readLock = (dataDir: string) =>
  Effect.promise(() => fs.readFile(path.join(dataDir, "lock.json"), "utf8")).pipe(
    Effect.map(Schema.decodeUnknownSync(Schema.parseJson(LockInfo)))
  )

/** The lock file as it is on disk (`typeof LockInfo.Encoded`: the token in clear). */
const writeLock = (dataDir: string, lock: typeof LockInfo.Encoded) =>
  Effect.promise(() => fs.writeFile(path.join(dataDir, "lock.json"), JSON.stringify(lock)))

const ipv6Loopback = await canListenOn("::1")

describe("the operator CLI and the service as processes, on the embedded database", () => {
  it.scopedLive("the CLI prints the result as JSON on stdout only, exit 0, the database on stderr; an error as `error: ...` on stderr, exit 1", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      const env = { DATA_DIR: dataDir }
      const created = yield* cli(env, "account", "create", "--name", "Ada", "--credits", "3", "--init")
      expect(created.exitCode).toBe(0)
      const account = parseJson(created.stdout)
      expect(account).toEqual({ id: expect.any(String), name: "Ada", email: null, registeredAt: expect.any(String), credits: 3 })
      expect(created.stdout).toBe(`${JSON.stringify(account, null, 2)}\n`)
      expect(created.stderr).toBe(`database: embedded, ${dataDir} (new, --init)\n`)

      const unknown = yield* cli(env, "credits", "add", crypto.randomUUID(), "5")
      expect(unknown).toEqual({
        exitCode: 1, signal: null, stdout: "", stderr: `database: embedded, ${dataDir}\nerror: credits add: account not found\n`
      })

      const unparsed = yield* cli(env, "account", "create", "--name", "Ada", "--credits", "abc")
      expect(unparsed).toEqual({
        exitCode: 1, signal: null, stdout: "",
        stderr: 'error: account create: --credits: expected a whole number, 0 or more, got "abc"\n' +
          "usage: bun run admin account create --name NAME [--email E] [--credits N]\n"
      })
      const invalid = yield* cli(env, "account", "create", "--name", "Ada", "--email", "ada")
      expect(invalid).toMatchObject({ exitCode: 1, stdout: "" })
      expect(invalid.stderr).toContain("error: account create: --email: Enter an e-mail address like name@example.com\n")
    }), timeout)

  it.scopedLive("help, --help and COMMAND --help print the usage on stdout and exit 0, opening no database", () =>
    Effect.gen(function* () {
      const env = { DATA_DIR: path.join(yield* tempDataDir, "data") }
      for (const args of [["help"], ["--help"]]) {
        expect(yield* cli(env, ...args)).toEqual({ exitCode: 0, signal: null, stdout: `${usage}\n`, stderr: "" })
      }
      expect(yield* cli(env, "user", "reset-link", "--help"))
        .toEqual({ exitCode: 0, signal: null, stdout: "usage: bun run admin user reset-link EMAIL\n", stderr: "" })
      expect(yield* Effect.promise(() => fs.stat(env.DATA_DIR).then(() => true, () => false))).toBe(false)
    }), timeout)

  // An operator once ran `account create` without DATABASE_URL beside a service on PostgreSQL: it
  // wrote to a new ./data, and the service refused its key.
  it.scopedLive("on a folder without a database the CLI refuses without --init and creates nothing", () =>
    Effect.gen(function* () {
      const parent = yield* tempDataDir
      for (const dataDir of [path.join(parent, "data"), parent]) {
        const refused = yield* cli({ DATA_DIR: dataDir }, "account", "create", "--name", "Ada")
        expect(refused).toMatchObject({ exitCode: 1, stdout: "" })
        expect(refused.stderr).toBe(`error: no database in ${dataDir}: start the service once (it creates it), set DATABASE_URL if the ` +
          "service uses PostgreSQL, set DATA_DIR to the service's folder, or pass --init to create a new embedded database there\n")
      }
      expect(yield* Effect.promise(() => fs.readdir(parent))).toEqual([])
    }), timeout)

  it.scopedLive("a folder whose service said it uses PostgreSQL: refused without DATABASE_URL, even with --init; a service on it removes the mark", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      const env = { DATA_DIR: dataDir }
      const { accountId, key } = yield* accountWithKey(env, 3)
      yield* Effect.promise(() =>
        fs.writeFile(path.join(dataDir, "database.json"), JSON.stringify({ database: "postgresql", url: "postgres://app:redacted@db:5432/app" }))
      )
      for (const init of [[], ["--init"]]) {
        const refused = yield* cli(env, ...init, "credits", "add", accountId, "5")
        expect(refused).toMatchObject({ exitCode: 1, stdout: "" })
        expect(refused.stderr).toBe(`error: the service of DATA_DIR ${dataDir} uses PostgreSQL (postgres://app:redacted@db:5432/app, ` +
          "says its database.json) and DATABASE_URL is not set: set it to that database (or remove database.json if the service no longer uses PostgreSQL)\n")
      }
      const service = yield* startService(env)
      yield* expectBalance(service.url, key, accountId, 3)
      expect(yield* Effect.promise(() => fs.readdir(dataDir))).not.toContain("database.json")
      const added = yield* cli(env, "credits", "add", accountId, "2")
      expect(added).toMatchObject({ exitCode: 0, stderr: `database: embedded, ${dataDir}, through the running service (pid ${service.pid})\n` })
      yield* expectBalance(service.url, key, accountId, 5)
    }), timeout)

  it.scopedLive("without a service the CLI opens the data folder; beside a running service it goes through the service", () =>
    Effect.gen(function* () {
      const env = { DATA_DIR: yield* tempDataDir }
      const { accountId, key } = yield* accountWithKey(env, 3)
      const service = yield* startService(env)
      yield* expectBalance(service.url, key, accountId, 3)

      expect(yield* addCredits(env, accountId, 5)).toEqual({ accountId, credits: 8 })
      // The service shows the new balance at once: it made the change (a second PGlite would not share it).
      yield* expectBalance(service.url, key, accountId, 8)
      const second = Schema.decodeUnknownSync(KeyPrinted)(yield* cliOk(env, "key", "create", accountId, "--name", "second"))
      yield* expectBalance(service.url, second.key, accountId, 8)
      expect(parseJson(yield* cliOk(env, "key", "list", accountId))).toMatchObject([
        { name: "CMS plugin", lastUsedAt: expect.any(String), status: "active" },
        { id: second.id, name: "second", lastUsedAt: expect.any(String), status: "active" }
      ])

      expect((yield* service.stop("SIGTERM")).exitCode).toBe(0)
      // Nothing corrupted: alone again, the CLI reads and writes what the service wrote.
      expect(yield* addCredits(env, accountId, 1)).toEqual({ accountId, credits: 9 })
      expect(parseJson(yield* cliOk(env, "key", "list", accountId))).toHaveLength(2)
    }), timeout)

  it.scopedLive("keys, balances and accounts survive a restart, after a clean stop (SIGTERM) or a crash (SIGKILL)", () =>
    Effect.gen(function* () {
      const env = { DATA_DIR: yield* tempDataDir }
      const { accountId, key } = yield* accountWithKey(env, 3)
      const first = yield* startService(env)
      yield* expectBalance(first.url, key, accountId, 3)
      expect(yield* addCredits(env, accountId, 4)).toEqual({ accountId, credits: 7 })
      const before = yield* expectBalance(first.url, key, accountId, 7)
      expect((yield* first.stop("SIGTERM")).exitCode).toBe(0)

      // The generated signing secret is kept in the database, so the same key still verifies.
      const second = yield* startService(env)
      expect(yield* expectBalance(second.url, key, accountId, 7)).toEqual(before)
      expect(yield* addCredits(env, accountId, 1)).toEqual({ accountId, credits: 8 })
      expect((yield* second.stop("SIGKILL")).signal).toBe("SIGKILL")

      const third = yield* startService(env)
      yield* expectBalance(third.url, key, accountId, 8)
      expect(yield* addCredits(env, accountId, 1)).toEqual({ accountId, credits: 9 })
      yield* expectBalance(third.url, key, accountId, 9)
    }), timeout)

  it.scopedLive("a stale lock.json, whose process is gone, stops neither the CLI nor the service", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      const env = { DATA_DIR: dataDir }
      // A service that died: its lock still points at an address where nothing answers.
      yield* writeLock(dataDir, { pid: endedProcessId(), owner: "service", url: "http://127.0.0.1:9", operatorToken: "stale" })
      const { accountId, key } = yield* accountWithKey(env, 3)

      yield* writeLock(dataDir, { pid: endedProcessId(), owner: "cli" })
      const service = yield* startService(env)
      yield* expectBalance(service.url, key, accountId, 3)
      expect(yield* readLock(dataDir)).toMatchObject({ pid: expect.any(Number), owner: "service", url: service.url })
      expect(yield* addCredits(env, accountId, 2)).toEqual({ accountId, credits: 5 })
      yield* expectBalance(service.url, key, accountId, 5)
    }), timeout)

  it.scopedLive("a lock.json whose pid now belongs to another live process (a crash, a reboot) stops neither the CLI nor the service", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      const env = { DATA_DIR: dataDir }
      // The test runner itself: alive, and not the process that wrote the lock (another start).
      const reused = { pid: process.pid }
      yield* writeLock(dataDir, { ...reused, owner: "service", url: "http://127.0.0.1:9", operatorToken: "stale" })
      const { accountId, key } = yield* accountWithKey(env, 3)

      yield* writeLock(dataDir, { ...reused, owner: "service", url: "http://127.0.0.1:9", operatorToken: "stale" })
      const service = yield* startService(env)
      yield* expectBalance(service.url, key, accountId, 3)
      expect(yield* readLock(dataDir)).toMatchObject({ pid: service.pid, url: service.url })
      // The live service's own lock still sends the CLI through it.
      expect(yield* addCredits(env, accountId, 2)).toEqual({ accountId, credits: 5 })
      yield* expectBalance(service.url, key, accountId, 5)
    }), timeout)

  it.scopedLive("a command sent to a running service that does not answer (stopped) gives up after 30 s, saying so", () =>
    Effect.gen(function* () {
      const env = { DATA_DIR: yield* tempDataDir }
      const service = yield* startService(env)
      process.kill(service.pid, "SIGSTOP")
      yield* Effect.addFinalizer(() => Effect.sync(() => process.kill(service.pid, "SIGCONT")))
      const ran = yield* cli(env, "account", "list")
      expect(ran.exitCode).toBe(1)
      expect(ran.stderr).toContain("account list: the running service did not answer within 30s")
    }), timeout)

  // The refusal logs the whole lock, operator token included: whoever reads the service's logs can
  // then run any operator command through the admin route (the lock file itself is 0600).
  it.scopedLive("a second service on a data folder in use is refused without printing the operator token; the first keeps it", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      const env = { DATA_DIR: dataDir }
      const { accountId, key } = yield* accountWithKey(env, 3)
      const first = yield* startService(env)
      const lock = yield* readLock(dataDir)
      const operatorToken = lock.operatorToken ? Redacted.value(lock.operatorToken) : undefined
      expect(operatorToken).toEqual(expect.any(String))

      const second = yield* serviceToEnd(env)
      expect(second.exitCode).toBe(1)
      expect(`${second.stdout}${second.stderr}`).not.toContain(operatorToken!)

      expect(yield* addCredits(env, accountId, 2)).toEqual({ accountId, credits: 5 })
      yield* expectBalance(first.url, key, accountId, 5)
    }), timeout)

  it.scopedLive.skipIf(!ipv6Loopback)("with HOST=::1 the CLI still reaches the running service", () =>
    Effect.gen(function* () {
      const env = { DATA_DIR: yield* tempDataDir }
      const { accountId, key } = yield* accountWithKey(env, 3)
      const service = yield* startService(env, "::1")
      expect(yield* addCredits(env, accountId, 2)).toEqual({ accountId, credits: 5 })
      yield* expectBalance(service.url, key, accountId, 5)
    }), timeout)

  // One of the machine's own addresses, not loopback: the operator route answers it, as the CLI connects from it.
  const lanAddress = Object.values(networkInterfaces()).flat().find((own) => own?.family === "IPv4" && !own.internal)?.address
  it.scopedLive.skipIf(lanAddress === undefined)("with HOST set to the machine's own address the CLI still reaches the running service", () =>
    Effect.gen(function* () {
      const env = { DATA_DIR: yield* tempDataDir }
      const { accountId, key } = yield* accountWithKey(env, 3)
      const service = yield* startService(env, lanAddress)
      expect(yield* addCredits(env, accountId, 2)).toEqual({ accountId, credits: 5 })
      yield* expectBalance(service.url, key, accountId, 5)
    }), timeout)
})

describe("the service's describer as a process", () => {
  const offlineWarning = "OFFLINE DESCRIBER: no AI model is configured"
  const occurrences = (text: string, part: string) => text.split(part).length - 1

  it.scopedLive("in production without a model endpoint it refuses to start, naming OPENAI_API_KEY and OPENAI_BASE_URL", () =>
    Effect.gen(function* () {
      const ended = yield* serviceToEnd({ DATA_DIR: yield* tempDataDir, NODE_ENV: "production" })
      expect(ended.exitCode).not.toBe(0)
      const printed = `${ended.stdout}${ended.stderr}`
      expect(printed).toContain("OPENAI_API_KEY")
      expect(printed).toContain("OPENAI_BASE_URL")
      expect(printed).toContain("DESCRIBER=offline")
    }), timeout)

  it.scopedLive("it answers offline when asked with DESCRIBER=offline in production, or by default elsewhere, and says so once", () =>
    Effect.gen(function* () {
      for (const env of [{ NODE_ENV: "production", DESCRIBER: "offline" }, {}]) {
        const service = yield* startService({ DATA_DIR: yield* tempDataDir, ...env })
        const ready = yield* Effect.promise(() => fetch(`${service.url}/readyz`).then((response) => response.json()))
        expect(ready).toMatchObject({ describer: "offline", disk: "ok" })
        const ended = yield* service.stop("SIGTERM")
        expect(occurrences(`${ended.stdout}${ended.stderr}`, offlineWarning)).toBe(1)
      }
    }), timeout)
})

if (postgresUrl) {
  const serverUrl = postgresUrl
  describe("the operator CLI and the service as processes, on PostgreSQL", () => {
    it.scopedLive("keys and balances survive a restart of the service; the CLI works beside it", () =>
      Effect.gen(function* () {
        const database = yield* freshPostgresUrl(serverUrl)
        const env = { DATABASE_URL: database.url, DATA_DIR: yield* tempDataDir }
        const { accountId, key } = yield* accountWithKey(env, 3)
        const first = yield* startService(env)
        yield* expectBalance(first.url, key, accountId, 3)
        expect(yield* addCredits(env, accountId, 4)).toEqual({ accountId, credits: 7 })
        const before = yield* expectBalance(first.url, key, accountId, 7)
        expect((yield* first.stop("SIGTERM")).exitCode).toBe(0)

        const second = yield* startService(env)
        expect(yield* expectBalance(second.url, key, accountId, 7)).toEqual(before)
      }), timeout)

    it.scopedLive("a database that cannot be opened is refused with the server's reason", () =>
      Effect.gen(function* () {
        const missing = new URL(serverUrl)
        missing.pathname = "/no_such_database_here"
        const ran = yield* cli({ DATABASE_URL: missing.toString(), DATA_DIR: yield* tempDataDir }, "account", "list")
        expect(ran.exitCode).toBe(1)
        expect(ran.stderr).toContain('error: could not connect to the database of DATABASE_URL: database "no_such_database_here" does not exist')
      }), timeout)

    it.scopedLive("the service leaves a mark in DATA_DIR: the CLI without DATABASE_URL refuses there and creates no database", () =>
      Effect.gen(function* () {
        const database = yield* freshPostgresUrl(serverUrl)
        const dataDir = path.join(yield* tempDataDir, "data")
        const { accountId } = yield* accountWithKey({ DATABASE_URL: database.url, DATA_DIR: dataDir }, 3)
        yield* startService({ DATABASE_URL: database.url, DATA_DIR: dataDir })
        const refused = yield* cli({ DATA_DIR: dataDir }, "credits", "add", accountId, "5")
        expect(refused).toMatchObject({ exitCode: 1, stdout: "" })
        expect(refused.stderr).toContain(`error: the service of DATA_DIR ${dataDir} uses PostgreSQL (postgres://`)
        expect(yield* Effect.promise(() => fs.readdir(dataDir))).toEqual(["database.json"])
        const added = yield* cli({ DATA_DIR: dataDir, DATABASE_URL: database.url }, "credits", "add", accountId, "5")
        expect(added).toMatchObject({ exitCode: 0, stderr: `database: PostgreSQL ${database.url}\n` })
      }), timeout)
  })
} else {
  describe.skip(postgresSkipReason, () => it("the operator CLI and the service as processes, on PostgreSQL", () => {}))
}
