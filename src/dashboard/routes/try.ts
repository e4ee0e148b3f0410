/**
 * The Try it page (README, Dashboard: Try it): the API's describe pipeline, run for the session's account with no
 * key, so no key ever reaches the browser. A success spends one credit, as on the API.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Ref from "effect/Ref"
import { AppConfig } from "../../config/AppConfig.ts"
import { describeChecks, failedCheck } from "../../domain/describeChecks.ts"
import { currentRequestId } from "../../domain/requestId.ts"
import { withoutIdleTimeout } from "../../http/connections.ts"
import { readDescribeUpload } from "../../http/upload.ts"
import { Accounts } from "../../services/Accounts.ts"
import { Describer } from "../../services/Describer.ts"
import { describeImage } from "../../services/describeImage.ts"
import { htmlPage, overHttps, queryParam } from "../http.ts"
import { tryPage } from "../pages/try.ts"
import type { TryView } from "../pages/try.ts"
import { checkSessionCsrf, CurrentSession, viewer, withSession } from "../session.ts"
import { blankFieldsAbsent, faultyField, typedFields } from "../tryForm.ts"
import type { TryFields } from "../tryCurl.ts"

/** Where the API is reached: `PUBLIC_URL`, else the address this page was loaded from. */
const apiOrigin = Effect.gen(function* () {
  const config = yield* AppConfig
  if (config.publicUrlSet) return config.publicUrl
  const request = yield* HttpServerRequest.HttpServerRequest
  const host = request.headers["host"]
  return host === undefined ? config.publicUrl : `${overHttps(request) ? "https" : "http"}://${host}`
})

/** The balance is read again after the request, so the page shows what it is now. */
const showTry = (status: number, view: Pick<TryView, "result" | "failure" | "fields">) =>
  Effect.gen(function* () {
    const { account } = yield* CurrentSession
    const { credits } = yield* Effect.flatMap(Accounts, (accounts) => accounts.find(account.id))
    const { kind } = yield* Describer
    const outcome = { status, requestId: yield* currentRequestId }
    return htmlPage(
      tryPage({ ...view, viewer: yield* viewer("try"), balance: credits, describer: kind, origin: yield* apiOrigin, outcome }),
      status
    )
  })

export const tryForm = withSession(showTry(200, {}))

/** The token is checked before a credit is held or a byte of the upload is read. */
export const tryDescribe = withSession(
  Effect.gen(function* () {
    yield* checkSessionCsrf(yield* queryParam("csrf"))
    const request = yield* HttpServerRequest.HttpServerRequest
    const { account } = yield* CurrentSession
    // What was typed is kept to fill the form again, whatever the answer (README "Dashboard").
    const typed = yield* Ref.make<TryFields>({})
    // The API's upload reader, then this page's reading of the form's blank fields.
    const form = readDescribeUpload(request, account.id).pipe(
      Effect.map(blankFieldsAbsent),
      Effect.tap((fields) => Ref.set(typed, typedFields(fields)))
    )
    const outcome = yield* Effect.either(
      describeImage({ accountId: account.id, keyId: null, form }).pipe(withoutIdleTimeout(request))
    )
    // Refused at check 2 (no credit, or all held), before the form was read: it is read now, only
    // to fill the page again.
    if (Either.isLeft(outcome) && describeChecks[outcome.left._tag].check === 2) yield* Effect.ignore(Effect.scoped(form))
    const fields = yield* Ref.get(typed)
    if (Either.isRight(outcome)) return yield* showTry(200, { result: outcome.right, fields })
    const { message, status } = failedCheck(outcome.left)
    return yield* showTry(status, { failure: { status, message, field: faultyField(outcome.left._tag) }, fields })
  })
)
