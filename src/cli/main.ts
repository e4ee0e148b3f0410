/**
 * `bun run admin <command>`: prints the result as JSON on stdout, which database it used on
 * stderr; on error a message on stderr and exit code 1; help on stdout. On the embedded database
 * it never opens the data folder under a running service: it sends the command to that service's
 * admin route instead.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as BunRuntime from "@effect/platform-bun/BunRuntime"
import type { SqlClient } from "@effect/sql/SqlClient"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { ServicesLive } from "../app.ts"
import type { AppConfig } from "../config/AppConfig.ts"
import * as Settings from "../config/Settings.ts"
import * as DataDirLock from "../db/DataDirLock.ts"
import * as Database from "../db/Database.ts"
import { AdminCommand, describeAdminError } from "./adminCommand.ts"
import { runCommand } from "./commands.ts"
import { chooseDatabase, CliError, describeTarget, type Target } from "./database.ts"
import { parseArgs } from "./parse.ts"
import { explained } from "../services/messageOf.ts"

const runHere = (command: AdminCommand, database: Layer.Layer<SqlClient, Database.DatabaseError, AppConfig>) =>
  runCommand(command).pipe(
    Effect.mapError((error) => new CliError({ message: describeAdminError(error) })),
    Effect.provide(ServicesLive.pipe(Layer.provideMerge(database)))
  )

/** How long a command sent to the running service may take. */
const runThereTimeout = Duration.seconds(30)

/** Sends the command to the running service that holds the data folder. */
const runThere = (command: AdminCommand, access: DataDirLock.LockInfo) =>
  Effect.gen(function* () {
    if (!access.url || !access.operatorToken) {
      return yield* new CliError({ message: "the service is starting; try again in a moment" })
    }
    const client = yield* HttpClient.HttpClient
    const request = yield* HttpClientRequest.post(`${access.url}/admin/commands`).pipe(
      HttpClientRequest.bearerToken(Redacted.value(access.operatorToken)),
      HttpClientRequest.schemaBodyJson(AdminCommand)(command)
    )
    const response = yield* client.execute(request)
    const body = yield* response.json
    if (response.status === 200) return body
    const message = Schema.decodeUnknownOption(Schema.Struct({ error: Schema.String }))(body)
    return yield* new CliError({ message: Option.match(message, { onNone: () => `HTTP ${response.status}`, onSome: (b) => b.error }) })
  }).pipe(
    // A service that is stopped (SIGSTOP) or wedged would otherwise keep the operator waiting for good.
    Effect.timeoutFail({ duration: runThereTimeout, onTimeout: () => new CliError({ message: `the running service did not answer within ${Duration.format(runThereTimeout)}` }) }),
    Effect.catchTags({
      RequestError: (e) => new CliError({ message: `cannot reach the running service: ${e.message}` }),
      ResponseError: (e) => new CliError({ message: `unexpected answer from the running service: ${e.message}` }),
      HttpBodyError: () => new CliError({ message: "cannot encode the command" })
    }),
    Effect.provide(FetchHttpClient.layer)
  )

/** Runs the command on `target`, or through the running service holding its data folder. */
const execute = (command: AdminCommand, target: Target) =>
  Effect.gen(function* () {
    if (target._tag === "Postgres") {
      yield* Console.error(describeTarget(target))
      return yield* runHere(command, Database.layerPostgres(target.url))
    }
    const opened = Database.layerPglite(target.dataDir, "cli").pipe(Layer.tap(() => Console.error(describeTarget(target))))
    return yield* runHere(command, opened).pipe(
      Effect.catchTag("DataDirBusy", ({ holder, message }) =>
        holder === undefined
          ? new CliError({ message })
          : Console.error(describeTarget(target, holder)).pipe(Effect.zipRight(runThere(command, holder))))
    )
  })

const program = Effect.gen(function* () {
  const invocation = yield* Either.match(parseArgs(process.argv.slice(2)), {
    onLeft: (message) => Effect.fail(new CliError({ message })),
    onRight: Effect.succeed
  })
  if (invocation._tag === "Help") return yield* Console.log(invocation.text)
  const { command } = invocation
  const target = yield* chooseDatabase(invocation.init)
  const result = yield* execute(command, target).pipe(
    // A refusal names the command, as the parser's do.
    Effect.catchTag("CliError", (error) => new CliError({ message: `${invocation.name}: ${error.message}` }))
  )
  yield* Console.log(JSON.stringify(result, null, 2))
})

program.pipe(
  // Inside the handler: a refused configuration is an operator's error too (stdout stays empty).
  Effect.provide(Settings.layer),
  Effect.catchAll((error) =>
    Console.error(`error: ${explained(error)}`).pipe(
      Effect.zipRight(Effect.sync(() => (process.exitCode = 1)))
    )
  ),
  // stdout carries only the JSON result.
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))),
  Logger.withMinimumLogLevel(LogLevel.Warning),
  BunRuntime.runMain
)
