/**
 * The dashboard's Webhooks page (README, "Webhooks"): the account's signing secret with a copy
 * button, replaced by a POST with the session's CSRF token, and the latest delivery attempts. A
 * delivery after the replacement verifies (reference library) with the new secret, not the old.
 */
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Logger, LogLevel } from "effect"
import { Webhook } from "standardwebhooks"
import { AccountId } from "../../src/domain/ids.ts"
import { parseAllowList } from "../../src/domain/publicAddress.ts"
import { WebhookDelivery } from "../../src/services/WebhookDelivery.ts"
import { Webhooks } from "../../src/services/Webhooks.ts"
import { accountOf, baseUrl, csrfOf, onPage, signedUp, visitor } from "../support/dashboard.ts"
import { pglite } from "../support/database.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"
import { webhookReceiver } from "../support/webhookReceiver.ts"

const quiet = Logger.minimumLogLevel(LogLevel.Warning)

const shownSecret = (page: string) => /id="webhook-secret"[^>]*value="(whsec_[A-Za-z0-9+/=]+)"/.exec(page)?.[1]

/** One event to the loopback receiver, delivered now; what it received. */
const deliverOne = (accountId: string) =>
  Effect.gen(function* () {
    const { base, received } = yield* webhookReceiver
    yield* Effect.flatMap(Webhooks, (webhooks) =>
      webhooks.enqueue({ accountId: AccountId.make(accountId), url: `${base}/ok/page`, event: { type: "batch.completed", data: { batchId: "b9" } } }))
    const delivery = yield* WebhookDelivery.make({
      allow: parseAllowList("127.0.0.1").allow, timeout: Duration.seconds(5), poll: Duration.seconds(1), concurrency: 1, perAccount: 1
    })
    expect(yield* delivery.deliverDue).toBe(1)
    const [request] = received
    return { body: request?.body ?? "", headers: request?.headers ?? {} }
  })

layer(serverWith(servicesOn(pglite)).pipe(Layer.provide(quiet)), { excludeTestServices: true })("the Webhooks page", (it) => {
  it.scoped("shows the account's secret with a copy button, the same on every visit, and each delivery attempt", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "hooks@example.com" })
      const first = yield* browser.get("/dashboard/webhooks")
      const secret = shownSecret(first.body) ?? ""
      expect([first.status, secret]).toEqual([200, expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/)])
      onPage(first.body, `<a href="/dashboard/webhooks" aria-current="page">Webhooks</a>`, `data-copy="webhook-secret"`, "No deliveries yet.")
      const delivered = yield* deliverOne(yield* accountOf("hooks@example.com"))
      expect(new Webhook(secret).verify(delivered.body, delivered.headers)).toMatchObject({ type: "batch.completed", data: { batchId: "b9" } })
      const again = yield* browser.get("/dashboard/webhooks")
      expect(shownSecret(again.body)).toBe(secret)
      onPage(again.body, "<code>batch.completed</code>", `${delivered.headers["webhook-id"]}`, "/ok/page", `<span class="status status-active">200</span>`)
    }))

  it.scoped("replacing the secret shows a new one; deliveries are then signed with it, and the old one no longer verifies them", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "rotate@example.com" })
      const before = yield* browser.get("/dashboard/webhooks")
      const old = shownSecret(before.body) ?? ""
      // The page links to a confirmation (a click alone breaks every receiver), which posts.
      onPage(before.body, `<a href="/dashboard/webhooks/rotate">Replace the secret</a>`)
      expect(before.body).not.toContain(`action="/dashboard/webhooks/rotate"`)
      const confirm = yield* browser.get("/dashboard/webhooks/rotate")
      onPage(confirm.body, "Replace the webhook secret?", `<form method="post" action="/dashboard/webhooks/rotate"`, `<a href="/dashboard/webhooks">Cancel, keep the secret</a>`)
      expect(shownSecret((yield* browser.get("/dashboard/webhooks")).body)).toBe(old)
      const answer = yield* browser.post("/dashboard/webhooks/rotate", { csrf: csrfOf(confirm.body) })
      expect([answer.status, answer.location]).toEqual([303, "/dashboard/webhooks?done=webhook-secret-rotated"])
      const after = yield* browser.get(answer.location ?? "")
      const replaced = shownSecret(after.body) ?? ""
      expect(replaced).toMatch(/^whsec_/)
      expect(replaced).not.toBe(old)
      onPage(after.body, "The webhook secret is replaced: deliveries from now on are signed with the new one only.")
      const delivered = yield* deliverOne(yield* accountOf("rotate@example.com"))
      expect(new Webhook(replaced).verify(delivered.body, delivered.headers)).toMatchObject({ type: "batch.completed" })
      expect(() => new Webhook(old).verify(delivered.body, delivered.headers)).toThrow("No matching signature found")
    }))

  it.effect("a replacement without the session's CSRF token is refused and changes nothing", () =>
    Effect.gen(function* () {
      const browser = yield* signedUp(yield* baseUrl, { email: "forged@example.com" })
      const secret = shownSecret((yield* browser.get("/dashboard/webhooks")).body)
      expect((yield* browser.post("/dashboard/webhooks/rotate", { csrf: "forged" })).status).toBe(403)
      expect(shownSecret((yield* browser.get("/dashboard/webhooks")).body)).toBe(secret)
    }))

  it.effect("is for logged-in people only: a visitor without a session is sent to log in", () =>
    Effect.gen(function* () {
      const answer = yield* visitor(yield* baseUrl).get("/dashboard/webhooks")
      expect([answer.status, answer.location]).toEqual([303, "/dashboard/login"])
    }))
})
