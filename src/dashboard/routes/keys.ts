/**
 * The API Keys page (spec §5; README, Dashboard: API keys): list, create, confirm and delete. Creating redirects
 * (POST/redirect/GET): the new key waits in the session's `KeyFlash` for the page after the
 * redirect, which shows it once, so a reload neither makes a second key nor shows it again.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { AppConfig } from "../../config/AppConfig.ts"
import { keyExpiryUsed, keyNameUsed } from "../../domain/keyForm.ts"
import { ApiKeys } from "../../services/ApiKeys.ts"
import { KeyFlash } from "../../services/KeyFlash.ts"
import { cookies, htmlPage, queryParam, readDashboardForm, seeOther } from "../http.ts"
import { notFoundPage } from "../pages/errors.ts"
import { deleteKeyPage, keysPage } from "../pages/keys.ts"
import type { KeysView } from "../pages/keys.ts"
import { paths } from "../pages/layout.ts"
import { checkSessionCsrf, CurrentSession, viewer, withSession } from "../session.ts"
import { snippets } from "../snippets.ts"
import { noticeOf } from "./notices.ts"

const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

const accountKeys = Effect.flatMap(CurrentSession, ({ account }) => Effect.flatMap(ApiKeys, (keys) => keys.list(account.id)))

/** The session's row and the cookie that seals its flash (`KeyFlash`). */
const flashSession = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { session } = yield* CurrentSession
  return { id: session.id, cookie: request.cookies[cookies.session] ?? "" }
})

const showKeys = (status: number, view: Pick<KeysView, "form" | "problem" | "notice">) =>
  Effect.gen(function* () {
    const keys = yield* accountKeys
    // A HEAD (a link checker, a prefetch) changes nothing: the new key waits for the GET that shows it.
    const { method } = yield* HttpServerRequest.HttpServerRequest
    const flash = method === "HEAD" ? Option.none() : yield* Effect.flatMap(KeyFlash, (flashes) => Effect.flatMap(flashSession, flashes.take))
    const { publicUrl } = yield* AppConfig
    const created = Option.flatMap(flash, ({ keyId, token }) =>
      Option.map(Option.fromNullable(keys.find((key) => key.id === keyId)), (key) => ({ key, token, snippets: snippets(token, publicUrl) })))
    const page = keysPage({ ...view, created: Option.getOrUndefined(created), viewer: yield* viewer("keys"), keys, now: yield* now })
    return htmlPage(page, status)
  })

export const listKeys = withSession(Effect.flatMap(queryParam("done"), (done) => showKeys(200, { notice: noticeOf(done) })))

export const createKey = withSession(
  Effect.gen(function* () {
    const form = yield* readDashboardForm
    yield* checkSessionCsrf(form.get("csrf"))
    const entered = {
      name: form.get("name") ?? undefined,
      expiry: form.get("expiry") ?? undefined,
      expiresOn: form.get("expires-on") ?? undefined
    }
    const { account } = yield* CurrentSession
    return yield* Either.all({ name: keyNameUsed(entered.name), expiredAt: keyExpiryUsed(entered.expiry, entered.expiresOn, yield* now) }).pipe(
      Effect.flatMap(({ expiredAt, name }) => Effect.flatMap(ApiKeys, (keys) => keys.create(account.id, { name: name ?? undefined, expiredAt }))),
      Effect.tap(({ key, token }) => Effect.flatMap(KeyFlash, (flashes) => Effect.flatMap(flashSession, (session) => flashes.keep(session, key.id, token)))),
      Effect.as(seeOther(paths.keys)),
      Effect.catchTag("FormInvalid", (problem) => showKeys(400, { form: entered, problem }))
    )
  })
)

/** A key of the session's account, by the id in the path; another account's key is not found. */
const ownKey = Effect.gen(function* () {
  const { id } = yield* HttpRouter.params
  const keys = yield* accountKeys
  return keys.find((key) => key.id === id)
})

const notFound = Effect.succeed(htmlPage(notFoundPage(), 404))

export const confirmDelete = withSession(
  Effect.gen(function* () {
    const key = yield* ownKey
    if (key === undefined) return yield* notFound
    return htmlPage(deleteKeyPage({ viewer: yield* viewer("keys"), key, now: yield* now }))
  })
)

/** Revokes at once (spec §5): the API reads the key's row on every request. */
export const deleteKey = withSession(
  Effect.gen(function* () {
    yield* checkSessionCsrf((yield* readDashboardForm).get("csrf"))
    const key = yield* ownKey
    if (key === undefined) return yield* notFound
    yield* Effect.flatMap(ApiKeys, (keys) => keys.remove(key.id)).pipe(Effect.catchTag("KeyNotFound", () => Effect.void))
    return seeOther(`${paths.keys}?done=key-deleted`)
  })
)
