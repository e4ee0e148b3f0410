/**
 * The dashboard (README, Dashboard), served by the service itself under `/dashboard`: server-rendered pages,
 * one tiny script for the copy button. Mounted by `src/http/router.ts`.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { asset, copyScript, styleSheet } from "./assets.ts"
import { htmlPage, securityHeaders } from "./http.ts"
import { formExpiredPage, formUnreadablePage, notFoundPage, serverErrorPage } from "./pages/errors.ts"
import { overview } from "./routes/account.ts"
import { listBatchesPage, showBatchPage } from "./routes/batches.ts"
import {
  acceptInvitation, invitationForm, logIn, loginForm, logOut, passwordResetForm, resetPassword, signUp, signupForm
} from "./routes/auth.ts"
import { confirmDelete, createKey, deleteKey, listKeys } from "./routes/keys.ts"
import { forgotPasswordForm, requestPasswordReset } from "./routes/forgotPassword.ts"
import { changePassword, passwordForm } from "./routes/password.ts"
import { tryDescribe, tryForm } from "./routes/try.ts"
import { usage, usageExport } from "./routes/usage.ts"
import { confirmRotate, rotateWebhookSecret, webhooks } from "./routes/webhooks.ts"

/** Log-in, sign-up, invitations, password resets and changes, log-out. */
const authRoutes = HttpRouter.empty.pipe(
  HttpRouter.get("/login", loginForm),
  HttpRouter.post("/login", logIn),
  HttpRouter.get("/signup", signupForm),
  HttpRouter.post("/signup", signUp),
  HttpRouter.get("/invitation", invitationForm),
  HttpRouter.post("/invitation", acceptInvitation),
  HttpRouter.get("/reset-password", passwordResetForm),
  HttpRouter.post("/reset-password", resetPassword),
  HttpRouter.get("/forgot-password", forgotPasswordForm),
  HttpRouter.post("/forgot-password", requestPasswordReset),
  HttpRouter.get("/password", passwordForm),
  HttpRouter.post("/password", changePassword),
  HttpRouter.post("/logout", logOut)
)

const notFound = Effect.succeed(htmlPage(notFoundPage(), 404))

/**
 * Any other page, for every method but HEAD: the router answers HEAD with the GET route of the same
 * path (a page, or this one) without its body, and a HEAD route here would take every HEAD.
 */
const notFoundRoutes = (["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const).reduce(
  (router, method) => HttpRouter.route(method)(router, "/*", notFound),
  HttpRouter.empty
)

const routes = HttpRouter.empty.pipe(
  HttpRouter.get("/", overview),
  HttpRouter.get("/keys", listKeys),
  HttpRouter.post("/keys", createKey),
  HttpRouter.get("/keys/:id/delete", confirmDelete),
  HttpRouter.post("/keys/:id/delete", deleteKey),
  HttpRouter.get("/usage", usage),
  HttpRouter.get("/usage/export", usageExport),
  HttpRouter.get("/batches", listBatchesPage),
  HttpRouter.get("/batches/:id", showBatchPage),
  HttpRouter.get("/try", tryForm),
  HttpRouter.post("/try", tryDescribe),
  HttpRouter.get("/webhooks", webhooks),
  HttpRouter.get("/webhooks/rotate", confirmRotate),
  HttpRouter.post("/webhooks/rotate", rotateWebhookSecret),
  HttpRouter.concat(authRoutes),
  HttpRouter.get("/assets/style.css", asset(styleSheet, "text/css; charset=utf-8")),
  HttpRouter.get("/assets/copy.js", asset(copyScript, "text/javascript; charset=utf-8")),
  HttpRouter.concat(notFoundRoutes)
)

/**
 * Around every route: a refused form says so and changes nothing, an unexpected failure is logged
 * and answered with a plain page, and every response gets the security headers.
 */
export const dashboard = HttpRouter.use(routes, (route) =>
  route.pipe(
    Effect.catchTags({
      CsrfRejected: () => Effect.succeed(htmlPage(formExpiredPage(), 403)),
      // The rest of the body is not read: the connection is closed after the answer.
      FormUnreadable: ({ reason }) =>
        Effect.succeed(
          htmlPage(formUnreadablePage(reason), reason === "tooLarge" ? 413 : 400).pipe(HttpServerResponse.setHeader("connection", "close"))
        )
    }),
    Effect.catchAllCause((cause) =>
      Effect.logError("dashboard: unexpected failure", cause).pipe(Effect.as(htmlPage(serverErrorPage(), 500)))
    ),
    Effect.map(securityHeaders)
  ))
