/**
 * Delivers the queued webhook events (README, "Webhooks"), on every replica: a worker claims a
 * due event (`FOR UPDATE SKIP LOCKED`, so two replicas never take the same one), signs it with the
 * account's secret of now, POSTs it within `WEBHOOK_TIMEOUT_MS`, and records the attempt. Any 2xx
 * delivers it; anything else (a 3xx included: redirects are not followed) is retried on the
 * Standard Webhooks schedule (domain/webhooks.ts) and abandoned after the last retry. An address
 * that may not be reached (checkedAddress.ts, `IMAGE_URL_ALLOW`) will not become reachable: the
 * event is abandoned at once, with the reason recorded.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { ImageUrlConfig } from "../config/ImageUrlConfig.ts"
import { WebhookConfig } from "../config/WebhookConfig.ts"
import type { AllowList } from "../domain/publicAddress.ts"
import { receiverPause, retryDelay, signedHeaders } from "../domain/webhooks.ts"
import type { AccountId } from "../domain/ids.ts"
import { AccountWebhooks } from "./AccountWebhooks.ts"
import { checkedAddresses, onEachAddress } from "./checkedAddress.ts"
import { HostResolver } from "./HostResolver.ts"
import { makeOutageLog } from "./outageLog.ts"
import { postTo } from "./webhookPost.ts"

export interface WebhookDeliverySettings {
  /** Hosts and ranges reachable beyond public addresses (`IMAGE_URL_ALLOW`, as for images). */
  readonly allow: AllowList
  /** For one attempt: connection, request and reply (`WEBHOOK_TIMEOUT_MS`). */
  readonly timeout: Duration.Duration
  /** How often a worker looks for due events (`WEBHOOK_POLL_MS`). */
  readonly poll: Duration.Duration
  /** Attempts in flight at once in this process (`WEBHOOK_CONCURRENCY`). */
  readonly concurrency: number
  /** Attempts in flight at once for one account, across replicas (`WEBHOOK_ACCOUNT_CONCURRENCY`). */
  readonly perAccount: number
}

/** The settings read at start-up (config/WebhookConfig.ts), with the image URLs' allow list. */
const settingsRead = Effect.map(Effect.all([WebhookConfig, ImageUrlConfig]), ([webhooks, imageUrls]) => ({ ...webhooks, allow: imageUrls.allow }))

interface Claimed {
  readonly id: string
  readonly accountId: AccountId
  readonly url: string
  readonly payload: string
  readonly attempts: number
}

/** What one attempt came to: recorded as is, and whether (and when) to try again. */
interface Outcome {
  readonly status: number | null
  readonly error: string | null
  readonly excerpt: string | null
  /** No retry whatever the schedule says: the address is refused. */
  readonly final: boolean
  /** No answer within the whole time-out: the attempt held a worker that long. */
  readonly timedOut?: true
}

/**
 * URLs of one account that timed out `within` a while, which hold all its events for the rest of
 * it: one dead `webhookUrl` leaves the account's other receivers served, but an account cannot
 * keep workers busy with a new hanging URL after another (`?n=1`, `?n=2`…: each costs a whole
 * time-out before its own pause; found by review). Time-outs only: a refused connection costs no
 * worker, and counting it held an account's working receiver ten minutes behind 20 dead URLs.
 * Not the URLs' pauses, which grow to hours: the working receivers would wait that long.
 */
const silentUrls = { holdingAccount: 2, within: Duration.minutes(1) }

/** How long delivered and abandoned events (and their attempts) are kept, for the dashboard. */
export const endedEventRetention = Duration.days(30)

export class WebhookDelivery extends Context.Tag("WebhookDelivery")<WebhookDelivery, {
  /** Attempts every event due now, until none is left; how many attempts were made. */
  readonly deliverDue: Effect.Effect<number>
  /**
   * This process's `WEBHOOK_CONCURRENCY` workers, for good: each attempts due events until none is
   * left, then looks again after `WEBHOOK_POLL_MS`; a database outage is logged and tried again.
   */
  readonly run: Effect.Effect<void>
  /** Deletes the events that ended more than `endedEventRetention` ago; how many. */
  readonly sweep: Effect.Effect<number>
}>() {
  static readonly make = (settings: WebhookDeliverySettings) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const accounts = yield* AccountWebhooks
      const resolver = yield* HostResolver
      const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
      // A claimed event is due again after this, should its worker die mid-attempt.
      const lease = Duration.sum(settings.timeout, Duration.minutes(1))

      // This process's workers holding an event: claimed, its attempt not yet recorded.
      const attempting = yield* Ref.make(0)

      /**
       * The oldest due event of an account with fewer than `perAccount` attempts in flight (a claim
       * whose lease has not run out) and whose receiver is not paused (`pause`), nor two of its
       * receivers timed out lately (`silentUrls`); on this process's
       * last free worker, of an account with none, so that accounts whose receivers hang never hold
       * every worker. Claims take turns (a transaction lock), so each counts the claims made before
       * it, on every replica, and this process's workers that hold an event (`attempting`, counted
       * in the turn: counted as each claim began, two workers that began together each took the
       * other for the last free one and took one account's two events, both then held by its
       * hanging receiver; found by CI). Oldest first, read from the due index: a claim
       * costs what the due events of busy or paused accounts ahead of the first it may take cost
       * (README, Known limitations: 30 ms with a paused receiver's 50,000 on PGlite, `npm run bench
       * -- webhookClaim`). The events in flight are read from their own index, not among the
       * retries due later (a receiver that fails fast leaves many).
       */
      const claim = (claimId: string) =>
        Effect.flatMap(Ref.make(false), (took) => Effect.gen(function* () {
          const at = yield* now
          yield* sql`SELECT pg_advisory_xact_lock(hashtextextended('webhook-claim', 0))`
          const lastWorker = (yield* Ref.get(attempting)) >= settings.concurrency - 1
          const [event] = yield* sql<Claimed>`WITH busy AS (
              SELECT account_id FROM webhook_events WHERE state = 'pending' AND claim_id IS NOT NULL AND next_attempt_at > ${at}
              GROUP BY account_id HAVING count(*) >= ${lastWorker ? 1 : settings.perAccount}
              UNION SELECT account_id FROM webhook_receiver_pauses
              WHERE timed_out_at > ${new Date(at.getTime() - Duration.toMillis(silentUrls.within))}
              GROUP BY account_id HAVING count(*) >= ${silentUrls.holdingAccount})
            UPDATE webhook_events SET attempts = attempts + 1, claim_id = ${claimId},
            next_attempt_at = ${new Date(at.getTime() + Duration.toMillis(lease))}
            WHERE id = (SELECT id FROM webhook_events e WHERE state = 'pending' AND next_attempt_at <= ${at}
              AND account_id NOT IN (SELECT account_id FROM busy)
              AND NOT EXISTS (SELECT FROM webhook_receiver_pauses p
                WHERE p.account_id = e.account_id AND p.url = e.url AND p.until > ${at})
              ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING id, account_id, url, payload, attempts`
          // Counted before the turn ends, for the claims that follow it.
          if (event !== undefined) yield* Effect.zipRight(Ref.set(took, true), Ref.update(attempting, (n) => n + 1))
          return Option.fromNullable(event)
        }).pipe(
          sql.withTransaction,
          // Not held after all (the commit failed, or the claim was cut): no longer counted.
          Effect.onExit((exit) =>
            Exit.isSuccess(exit) ? Effect.void : Effect.flatMap(Ref.get(took), (counted) => counted ? Ref.update(attempting, (n) => n - 1) : Effect.void))
        ))

      const attempt = (event: Claimed): Effect.Effect<Outcome> =>
        Effect.gen(function* () {
          const url = URL.parse(event.url)
          if (url === null) return { status: null, error: "not a URL", excerpt: null, final: true }
          const answer = yield* Effect.gen(function* () {
            const addresses = yield* checkedAddresses(settings.allow, url).pipe(Effect.provideService(HostResolver, resolver))
            const timestamp = Math.floor((yield* Clock.currentTimeMillis) / 1000)
            const headers = signedHeaders([yield* accounts.secretOf(event.accountId)], { id: event.id, timestamp, body: event.payload })
            // Another address only when this one was never connected to: the event was not sent twice.
            return yield* onEachAddress(addresses, (address) => postTo(url, address, headers, event.payload), (failed) => failed.unconnected)
          }).pipe(
            Effect.timeoutFail({
              duration: settings.timeout,
              onTimeout: () => ({ _tag: "TimedOut" as const, reason: `no answer within ${Duration.toMillis(settings.timeout) / 1000} s` })
            })
          )
          // The deadline is for the status (README, Webhooks): the excerpt's own second comes after it
          // (a 200 at 9.3 s with a body left open was recorded as no answer, and sent again).
          return { status: answer.status, error: null, excerpt: yield* answer.excerpt, final: false }
        }).pipe(
          Effect.catchTags({
            AddressRefused: ({ reason }) => Effect.succeed({ status: null, error: `refused: ${reason}`, excerpt: null, final: true }),
            HostUnresolved: () => Effect.succeed({ status: null, error: "the host name did not resolve", excerpt: null, final: false }),
            PostFailed: ({ reason }) => Effect.succeed({ status: null, error: reason, excerpt: null, final: false }),
            TimedOut: ({ reason }) => Effect.succeed({ status: null, error: reason, excerpt: null, final: false, timedOut: true as const })
          })
        )

      /**
       * A receiver (an account's URL) that did not answer is left alone for a while: the account's
       * other events to it wait instead of each holding a worker for a whole time-out, so that as
       * many accounts whose receivers hang as there are workers cannot hold them all for long
       * (README, Webhooks); its events to other URLs go out, unless `silentUrls` of its
       * URLs timed out lately.
       */
      const pause = (event: Claimed, at: Date, timedOut: boolean) =>
        Effect.gen(function* () {
          const [paused] = yield* sql<{ failures: number }>`SELECT failures FROM webhook_receiver_pauses
            WHERE account_id = ${event.accountId} AND url = ${event.url}`
          const failures = (paused?.failures ?? 0) + 1
          const until = new Date(at.getTime() + Duration.toMillis(receiverPause(failures)))
          const timedOutAt = timedOut ? at : null
          yield* sql`INSERT INTO webhook_receiver_pauses (account_id, url, failures, timed_out_at, until)
            VALUES (${event.accountId}, ${event.url}, ${failures}, ${timedOutAt}, ${until})
            ON CONFLICT (account_id, url) DO UPDATE SET failures = EXCLUDED.failures, until = EXCLUDED.until,
            timed_out_at = coalesce(EXCLUDED.timed_out_at, webhook_receiver_pauses.timed_out_at)`
        })

      /** Records the attempt and what follows: delivered, due again later, or abandoned. */
      const record = (event: Claimed, claimId: string, outcome: Outcome, started: number) =>
        Effect.gen(function* () {
          const at = yield* now
          const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status <= 299
          const delay = delivered || outcome.final ? undefined : retryDelay(event.attempts)
          yield* sql`INSERT INTO webhook_attempts ${sql.insert({
            eventId: event.id, attempt: event.attempts, attemptedAt: new Date(started), status: outcome.status,
            error: outcome.error, durationMs: at.getTime() - started, responseExcerpt: outcome.excerpt
          })} ON CONFLICT DO NOTHING`
          yield* delay !== undefined
            ? sql`UPDATE webhook_events SET next_attempt_at = ${new Date(at.getTime() + Duration.toMillis(delay))}, claim_id = NULL
                WHERE id = ${event.id} AND claim_id = ${claimId}`
            : sql`UPDATE webhook_events SET state = ${delivered ? "delivered" : "abandoned"}, ended_at = ${at},
                end_reason = ${delivered ? null : outcome.error ?? `the receiver answered ${outcome.status}`}, claim_id = NULL
                WHERE id = ${event.id} AND claim_id = ${claimId}`
          if (!delivered && delay === undefined) {
            yield* Effect.logWarning("webhook event abandoned").pipe(Effect.annotateLogs({ eventId: event.id, attempts: event.attempts }))
          }
          // No answer pauses the receiver; any answer, whatever its status, ends a pause.
          if (outcome.status !== null) {
            yield* sql`DELETE FROM webhook_receiver_pauses WHERE account_id = ${event.accountId} AND url = ${event.url}`
          } else if (!outcome.final) yield* pause(event, at, outcome.timedOut === true)
        }).pipe(sql.withTransaction)

      /**
       * One worker's claim and attempt; whether an event was due. The claim counts the event it
       * takes (`attempting`); it is no longer counted once its attempt is recorded, or cut.
       */
      const attemptNext = Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const claimId = crypto.randomUUID()
          const claimed = yield* restore(claim(claimId)).pipe(Effect.orDie)
          if (Option.isNone(claimed)) return false
          const event = claimed.value
          yield* restore(Effect.gen(function* () {
            const started = yield* Clock.currentTimeMillis
            const outcome = yield* attempt(event)
            yield* record(event, claimId, outcome, started).pipe(Effect.orDie)
          })).pipe(Effect.ensuring(Ref.update(attempting, (n) => n - 1)))
          return true
        })
      )

      /** One worker's attempts, one after another until none is due; how many. */
      const drain = (count: number): Effect.Effect<number> =>
        Effect.flatMap(attemptNext, (attempted) => attempted ? drain(count + 1) : Effect.succeed(count))

      const workers = Array.from({ length: settings.concurrency }, () => drain(0))
      const deliverDue = Effect.all(workers, { concurrency: "unbounded" }).pipe(
        Effect.map((counts) => counts.reduce((a, b) => a + b, 0)),
        Effect.withSpan("WebhookDelivery.deliverDue")
      )
      // Each worker looks again on its own: one held by a receiver that hangs does not hold the others.
      // A database outage is logged once by this process, not by each worker at each look, then its end.
      const watched = yield* makeOutageLog({ failing: "could not deliver webhook events", resumed: "webhook deliveries resumed" })
      const run = Effect.forEach(workers, (worker) =>
        watched(worker).pipe(
          Effect.zipRight(Effect.sleep(settings.poll)),
          Effect.forever
        ), { concurrency: "unbounded", discard: true })
      const sweep = Effect.gen(function* () {
        const before = new Date((yield* Clock.currentTimeMillis) - Duration.toMillis(endedEventRetention))
        const rows = yield* sql`DELETE FROM webhook_events WHERE state <> 'pending' AND ended_at < ${before} RETURNING id`
        // A receiver that never answered again: its events were abandoned long since.
        yield* sql`DELETE FROM webhook_receiver_pauses WHERE until < ${before}`
        return rows.length
      }).pipe(Effect.orDie, Effect.withSpan("WebhookDelivery.sweep"))
      return { deliverDue, run, sweep }
    })

  static readonly layerWith = (settings: WebhookDeliverySettings) => Layer.effect(WebhookDelivery, WebhookDelivery.make(settings))

  static readonly layer = Layer.unwrapEffect(Effect.map(settingsRead, WebhookDelivery.layerWith))

  /**
   * The workers of this process, for the life of the layer, and old ended events swept every hour.
   * A database outage does not end them; the next look tries again.
   */
  static readonly worker = Layer.scopedDiscard(Effect.gen(function* () {
    const { run, sweep } = yield* WebhookDelivery
    yield* Effect.forkScoped(run)
    const sweepRound = sweep.pipe(Effect.catchAllCause((cause) => Effect.logWarning("could not sweep ended webhook events", cause)))
    yield* Effect.forkScoped(Effect.forever(Effect.delay(sweepRound, "1 hour")))
  }))

  /** The delivery service and its worker, configured from the settings (config/Settings.ts, src/app.ts). */
  static readonly live = WebhookDelivery.worker.pipe(Layer.provideMerge(WebhookDelivery.layer))
}
