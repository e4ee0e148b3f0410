/** The Batches pages (README, "Batches"): the account's batches, and one of them; another account's is not found. */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Batches } from "../../services/Batches.ts"
import { htmlPage } from "../http.ts"
import { batchesPage, batchPage } from "../pages/batches.ts"
import { notFoundPage } from "../pages/errors.ts"
import { CurrentSession, viewer, withSession } from "../session.ts"

/** Batches listed: enough for a screen; older ones are read through the API. */
const listed = 50

export const listBatchesPage = withSession(
  Effect.gen(function* () {
    const { account } = yield* CurrentSession
    const page = yield* Effect.flatMap(Batches, (batches) => batches.list(account.id, { limit: listed, before: Option.none() }))
    return htmlPage(batchesPage({ viewer: yield* viewer("batches"), batches: page.batches, limit: listed }))
  })
)

export const showBatchPage = withSession(
  Effect.gen(function* () {
    const { account } = yield* CurrentSession
    const { id } = yield* HttpRouter.params
    const found = yield* Effect.flatMap(Batches, (batches) => batches.get(account.id, id ?? "")).pipe(Effect.option)
    if (Option.isNone(found)) return htmlPage(notFoundPage(), 404)
    return htmlPage(batchPage({ viewer: yield* viewer("batches"), batch: found.value.summary, items: found.value.items }))
  })
)
