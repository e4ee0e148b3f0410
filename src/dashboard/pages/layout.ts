/** The frame of every dashboard page: landmarks, a skip link, the navigation and the log-out form. */
import { html } from "../html.ts"
import type { Html, Interpolation } from "../html.ts"
import { csrfInput } from "./components.ts"

export const paths = {
  overview: "/dashboard",
  keys: "/dashboard/keys",
  usage: "/dashboard/usage",
  usageExport: "/dashboard/usage/export",
  batches: "/dashboard/batches",
  try: "/dashboard/try",
  webhooks: "/dashboard/webhooks",
  webhooksRotate: "/dashboard/webhooks/rotate",
  login: "/dashboard/login",
  signup: "/dashboard/signup",
  invitation: "/dashboard/invitation",
  resetPassword: "/dashboard/reset-password",
  forgotPassword: "/dashboard/forgot-password",
  password: "/dashboard/password",
  logout: "/dashboard/logout",
  style: "/dashboard/assets/style.css",
  copyScript: "/dashboard/assets/copy.js",
  favicon: "/favicon.svg",
  apiReference: "/api/docs"
} as const

export type Section = "overview" | "keys" | "usage" | "batches" | "try" | "webhooks"

const sections: ReadonlyArray<readonly [Section, string]> = [
  ["overview", "Overview"],
  ["keys", "API keys"],
  ["usage", "Usage"],
  ["batches", "Batches"],
  ["try", "Try it"],
  ["webhooks", "Webhooks"]
]

/** Who is logged in, for the header; absent on the log-in and sign-up pages. */
export interface Viewer {
  readonly accountName: string
  readonly email: string
  readonly csrfToken: string
  readonly section: Section | undefined
}

export interface PageOptions {
  readonly title: string
  readonly viewer?: Viewer | undefined
  /** A short confirmation of what was just done, read out by screen readers. */
  readonly notice?: string | undefined
  /** Pages with a copy button load the one small script. */
  readonly script?: boolean
  readonly body: Interpolation
}

const navigation = (viewer: Viewer) =>
  html`<nav aria-label="Dashboard">
      <ul>${sections.map(([section, label]) =>
        html`<li><a href="${paths[section]}"${section === viewer.section ? html` aria-current="page"` : ""}>${label}</a></li>`)}
        <li><a href="${paths.apiReference}">API reference</a></li></ul>
    </nav>
    <div class="account">
      <p><span class="visually-hidden">Logged in to </span>${viewer.accountName} <span class="muted">(${viewer.email})</span></p>
      <form method="post" action="${paths.logout}">${csrfInput(viewer.csrfToken)}<button type="submit" class="button-secondary">Log out</button></form>
    </div>`

export const page = (options: PageOptions): Html =>
  html`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${options.title} – Image metadata dashboard</title>
  <link rel="icon" href="${paths.favicon}" type="image/svg+xml">
  <link rel="stylesheet" href="${paths.style}">
  ${options.script && html`<script src="${paths.copyScript}" defer></script>`}
</head>
<body>
  <a class="skip-link" href="#main">Skip to main content</a>
  <header class="site-header">
    <p class="brand"><a href="${paths.overview}">Image metadata</a></p>
    ${options.viewer && navigation(options.viewer)}
  </header>
  <main id="main" tabindex="-1">
    <h1>${options.title}</h1>
    ${options.notice && html`<p class="notice" role="status">${options.notice}</p>`}
    ${options.body}
  </main>
  <footer class="site-footer">
    <p>Keys belong on servers, never in browser code: anyone can read a key a web page sends.</p>
  </footer>
</body>
</html>`
