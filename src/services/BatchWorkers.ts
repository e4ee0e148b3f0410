/**
 * The workers that run batch items (README, "Batches"): `BATCH_WORKERS` per process, each claiming
 * one item at a time from the database (batchItems.ts) and running it as a describe
 * (describeImage.ts: the same checks, messages, fair image permits and credit as a request), at
 * most `BATCH_ACCOUNT_CONCURRENCY` items of one account at once across all replicas. A recovery
 * loop gives the items of processes that are gone (or this one's, lost) back to the queue.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import { BatchConfig } from "../config/BatchConfig.ts"
import { itemForm } from "../domain/batchInput.ts"
import { failedCheck } from "../domain/describeChecks.ts"
import type { DescribeError } from "../domain/errors.ts"
import { requestIdAnnotation } from "../domain/requestId.ts"
import { type ClaimedItem, type Intended, makeBatchItems } from "./batchItems.ts"
import { Credits } from "./Credits.ts"
import { describeImage } from "./describeImage.ts"
import { Instance } from "./Instance.ts"
import { makeOutageLog } from "./outageLog.ts"
import { failureFacts } from "./RequestFacts.ts"

/** `Effect.uninterruptibleMask`'s restore. */
type Restore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/** How often items of stopped processes are looked for (a dead process is known a few seconds on, Instance.ts). */
const recoveryEvery = Duration.seconds(5)

/** How long a worker tries to end an attempt before leaving it to the recovery loop. */
const finishFor = Duration.seconds(30)

/** What the worker saw of its attempt (the usage row decides, batchItems.ts). */
const intendedOf = (exit: Exit.Exit<unknown, DescribeError>): Intended =>
  Exit.match(exit, {
    onSuccess: () => ({ kind: "succeeded" }),
    onFailure: (cause) =>
      Option.match(Cause.failureOption(cause), {
        // Credits held past the wait (by the account's other requests) may come back: not a failure of the item.
        onSome: (error) => error._tag === "CreditsHeld"
          ? { kind: "requeue" }
          : { kind: "failed", status: failedCheck(error).status, error: failedCheck(error).message },
        // Interrupted (the process is stopping): back to the queue, uncharged.
        onNone: () => Cause.isInterruptedOnly(cause) ? { kind: "requeue" } : { kind: "failed", status: 500, error: "Internal Server Error" }
      })
  })

/** The workers and the recovery loop of this process, for the scope of the layer. */
export const batchWorkers = (config: Context.Tag.Service<BatchConfig>) => Layer.scopedDiscard(Effect.gen(function* () {
  const items = yield* makeBatchItems
  const instance = yield* Instance
  const credits = yield* Credits
  /** Attempts of this process, entered before their claim is written (`recover` reads them after the rows). */
  const live = yield* Ref.make(HashSet.empty<string>())

  const finish = (item: Pick<ClaimedItem, "id" | "batchId" | "attemptId">, intended: Intended) =>
    items.finish(item, intended).pipe(
      Effect.filterOrFail((ended) => ended === "done", () => new Cause.NoSuchElementException("not yet")),
      Effect.retry(Schedule.spaced("1 second").pipe(Schedule.upTo(finishFor))),
      Effect.catchAllCause((cause) => Effect.logWarning("a batch item could not be ended yet; the recovery loop will", cause))
    )

  /** Runs a claimed item, in the claim's uninterruptible region: only the describe may be interrupted (`restore`). */
  const run = (item: ClaimedItem, restore: Restore) =>
    Effect.gen(function* () {
      const started = yield* Clock.currentTimeMillis
      const exit = yield* Effect.exit(restore(describeImage({
        accountId: item.accountId,
        keyId: item.keyId,
        form: Effect.succeed(itemForm(item.fields)),
        onDescribed: (described) => Effect.orDie(items.storeResult(item, described))
      })))
      const intended = intendedOf(exit)
      yield* finish(item, intended)
      // An item's line, as a describe's request has its own (found by review: a failed item left none).
      yield* Effect.logInfo("batch item").pipe(Effect.annotateLogs({
        batchId: item.batchId,
        outcome: intended.kind,
        ...(intended.kind === "failed" && {
          status: intended.status,
          ...Option.match(Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none(), { onNone: () => ({}), onSome: failureFacts })
        }),
        durationMs: (yield* Clock.currentTimeMillis) - started
      }))
    }).pipe(
      // The attempt's id is its usage row's request id, which is how its charge is found.
      Effect.annotateLogs(requestIdAnnotation, item.attemptId),
      Effect.withSpan("BatchWorkers.item")
    )

  /** One claim and its item, or a pause when there is nothing to do. */
  const step = Effect.uninterruptibleMask((restore) =>
    Effect.gen(function* () {
      const attemptId: string = crypto.randomUUID()
      yield* Ref.update(live, HashSet.add(attemptId))
      const claimed = yield* items.claim(instance.id, attemptId, config.perAccount).pipe(
        Effect.tapErrorCause(() => Ref.update(live, HashSet.remove(attemptId)))
      )
      if (Option.isNone(claimed)) {
        yield* Ref.update(live, HashSet.remove(attemptId))
        return yield* restore(Effect.sleep(config.poll))
      }
      yield* run(claimed.value, restore).pipe(Effect.ensuring(Ref.update(live, HashSet.remove(attemptId))))
    })
  )

  const watchedStep = yield* makeOutageLog({ failing: "a batch worker failed; it goes on after a pause", resumed: "batch workers resumed" })
  const worker = watchedStep(step).pipe(
    Effect.flatMap((stepped) => stepped ? Effect.void : Effect.sleep(config.poll)),
    Effect.forever
  )

  const watchedRecovery = yield* makeOutageLog({ failing: "could not recover batch items", resumed: "batch items recovered again" })
  /**
   * Attempts nobody will end: those of stopped processes (their credits released first by the
   * credit sweep, so each is told from its usage row), and this process's own that no worker
   * holds (one that gave up ending it). Rows are read before `live`.
   */
  const recover = watchedRecovery(Effect.gen(function* () {
    const elsewhere = yield* items.runningElsewhere(instance.id)
    const processes = [...new Set(elsewhere.map((item) => item.claimedBy))]
    const gone = yield* Effect.filter(processes, (id) => Effect.map(instance.isAlive(id), (alive) => !alive))
    if (gone.length > 0) yield* credits.releaseAbandoned
    const own = yield* items.runningHere(instance.id)
    const running = yield* Ref.get(live)
    const orphans = [
      ...elsewhere.filter((item) => gone.includes(item.claimedBy)),
      ...own.filter((item) => !HashSet.has(running, item.attemptId))
    ]
    for (const item of orphans) yield* items.finish(item, { kind: "requeue" })
    if (orphans.length > 0) yield* Effect.logWarning("batch items of a stopped worker went back to the queue").pipe(Effect.annotateLogs({ items: orphans.length }))
  }))

  yield* recover
  yield* Effect.forkScoped(Effect.forever(Effect.delay(recover, recoveryEvery)))
  for (let i = 0; i < config.workers; i++) yield* Effect.forkScoped(worker)
}))

export const BatchWorkersLive = Layer.unwrapEffect(Effect.map(BatchConfig, batchWorkers))
