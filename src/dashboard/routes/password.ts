/** Changing the password of the logged-in user, from the Overview's Account section (README, Dashboard). */
import * as Effect from "effect/Effect"
import { Users } from "../../services/Users.ts"
import { clientAddress, htmlPage, readDashboardForm, seeOther } from "../http.ts"
import { changePasswordPage } from "../pages/account.ts"
import type { Problem } from "../pages/components.ts"
import { paths } from "../pages/layout.ts"
import { checkSessionCsrf, CurrentSession, viewer, withSession } from "../session.ts"
import { retryAfterHeader, tryAgainIn } from "./auth.ts"

const showForm = (status: number, problem?: Problem) =>
  Effect.map(viewer(undefined), (shown) => htmlPage(changePasswordPage({ viewer: shown, problem }), status))

export const passwordForm = withSession(showForm(200))

export const changePassword = withSession(
  Effect.gen(function* () {
    const form = yield* readDashboardForm
    yield* checkSessionCsrf(form.get("csrf"))
    const { session } = yield* CurrentSession
    const address = yield* clientAddress
    return yield* Effect.flatMap(Users, (users) =>
      users.changePassword({
        userId: session.userId,
        email: session.email,
        current: form.get("current-password") ?? "",
        next: form.get("password") ?? "",
        address,
        keepSession: session.id
      })).pipe(
        Effect.as(seeOther(`${paths.overview}?done=password-changed`)),
        Effect.catchTags({
          FormInvalid: (invalid) => showForm(400, invalid),
          LoginFailed: () => showForm(401, { field: "current-password", message: "The current password is not right" }),
          LoginThrottled: (refused) =>
            showForm(429, { message: `Too many failed log-ins. ${tryAgainIn(refused.retryAfterSeconds)}` })
              .pipe(Effect.map(retryAfterHeader(refused.retryAfterSeconds)))
        })
      )
  })
)
