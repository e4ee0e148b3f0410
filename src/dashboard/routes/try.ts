/**
 * The Try it page (README, Dashboard: Try it): the API's describe pipeline, run for the session's account with no
 * key, so no key ever reaches the browser. A success spends one credit, as on the API.
 */
import { HttpServerRequest } from "@effect/platform"
import { Effect, Either } from "effect"
import { failedCheck } from "../../domain/describeChecks.ts"
import { withoutIdleTimeout } from "../../http/connections.ts"
import { readUpload } from "../../http/upload.ts"
import { Accounts } from "../../services/Accounts.ts"
import { Describer } from "../../services/Describer.ts"
import { describeImage } from "../../services/describeImage.ts"
import { htmlPage, queryParam } from "../http.ts"
import { tryPage } from "../pages/try.ts"
import type { TryView } from "../pages/try.ts"
import { checkSessionCsrf, CurrentSession, viewer, withSession } from "../session.ts"
import { blankFieldsAbsent } from "../tryForm.ts"

/** The balance is read again after the request, so the page shows what it is now. */
const showTry = (status: number, view: Pick<TryView, "result" | "failure">) =>
  Effect.gen(function* () {
    const { account } = yield* CurrentSession
    const { credits } = yield* Effect.flatMap(Accounts, (accounts) => accounts.find(account.id))
    const { kind } = yield* Describer
    return htmlPage(tryPage({ ...view, viewer: yield* viewer("try"), balance: credits, describer: kind }), status)
  })

export const tryForm = withSession(showTry(200, {}))

/** The token is checked before a credit is held or a byte of the upload is read. */
export const tryDescribe = withSession(
  Effect.gen(function* () {
    yield* checkSessionCsrf(yield* queryParam("csrf"))
    const request = yield* HttpServerRequest.HttpServerRequest
    const { account } = yield* CurrentSession
    // The API's upload reader, then this page's reading of the form's blank fields.
    const form = Effect.map(readUpload(request, account.id), blankFieldsAbsent)
    const outcome = yield* Effect.either(
      describeImage({ accountId: account.id, keyId: null, form }).pipe(withoutIdleTimeout(request))
    )
    if (Either.isRight(outcome)) return yield* showTry(200, { result: outcome.right })
    const { message, status } = failedCheck(outcome.left)
    return yield* showTry(status, { failure: { status, message } })
  })
)
