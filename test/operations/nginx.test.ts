/**
 * deploy/nginx.conf keeps `/metrics` off the public proxy under every spelling the service's router
 * takes for it. First the rule, read and applied as nginx does (to the path decoded, dot segments
 * resolved and slashes merged, case ignored for `~*`); then Debian's nginx itself, run on loopback
 * with the file in front of the app, when it is installed (`.ci/run` installs it).
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pglite } from "../support/database.ts"
import { serverPort } from "../support/describe.ts"
import { metricsSpellings } from "../support/metricsPaths.ts"
import { deployConf as conf, loopbackConf } from "../support/nginxConf.ts"
import { requestHead, sendRaw } from "../support/rawHttp.ts"
import { serverWith } from "../support/server.ts"
import { servicesOn } from "../support/services.ts"

/**
 * The regex locations answering 404, as JavaScript regexes (the ones used are PCRE and JS alike).
 * Quoted: unquoted, nginx would end the directive at the regex's `;`.
 */
const blocked = [...conf.matchAll(/location\s+(~\*?)\s+"([^"]+)"\s*\{\s*return\s+404;\s*\}/g)].map(
  ([, modifier, pattern]) => new RegExp(pattern ?? "", modifier === "~*" ? "i" : "")
)

/** The URI nginx matches locations against: no query, decoded, `.` and `..` resolved, slashes merged. */
const normalized = (path: string) => {
  const segments: Array<string> = []
  for (const segment of decodeURIComponent(path.split("?")[0] ?? "").split("/").slice(1)) {
    if (segment === "..") segments.pop()
    else if (segment !== ".") segments.push(segment)
  }
  return `/${segments.join("/")}`.replace(/\/+/g, "/")
}

const refused = (path: string) => blocked.some((rule) => rule.test(normalized(path)))

describe("deploy/nginx.conf", () => {
  it("has one case-insensitive regex location that answers 404 for metrics", () => {
    expect(blocked).toHaveLength(1)
    expect(blocked[0]?.flags).toBe("i")
    expect(conf).not.toMatch(/location\s+=\s+\/metrics/)
  })

  it("refuses every spelling the router serves as /metrics", () => {
    for (const path of metricsSpellings) expect([path, refused(path)]).toEqual([path, true])
    expect(refused("/metrics?name=x")).toBe(true)
  })

  it("passes the service's own routes through", () => {
    for (const path of ["/api/describe", "/api/tokens", "/healthz", "/readyz", "/dashboard/usage", "/api/docs", "/metricsboard"]) {
      expect([path, refused(path)]).toEqual([path, false])
    }
  })
})

// ---- Debian's nginx in front of the app

const nginxPath = "/usr/sbin/nginx"
const nginxMissing = !existsSync(nginxPath)

/** A port free a moment ago, for nginx to listen on. */
const freePort = Effect.async<number>((resume) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/**
 * deploy/nginx.conf as it stands, with only what ties it to compose changed: it listens on a
 * loopback port and proxies to the app's port (no Docker DNS). Runs in the foreground; stopped
 * with the scope. The port it listens on.
 */
const nginxInFrontOf = (appPort: number) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const dir = mkdtempSync(join(tmpdir(), "nginx-test-"))
    for (const temp of ["body", "proxy"]) mkdirSync(join(dir, temp))
    writeFileSync(join(dir, "site.conf"), loopbackConf(port, [appPort]).replace("/var/log/nginx/access.log", join(dir, "access.log")))
    writeFileSync(join(dir, "nginx.conf"), [
      "daemon off;", "master_process off;", `pid ${dir}/nginx.pid;`, `error_log ${dir}/error.log;`, "events {}",
      "http {", "access_log off;", `client_body_temp_path ${dir}/body;`, `proxy_temp_path ${dir}/proxy;`,
      `fastcgi_temp_path ${dir}/proxy;`, `uwsgi_temp_path ${dir}/proxy;`, `scgi_temp_path ${dir}/proxy;`,
      `include ${dir}/site.conf;`, "}"
    ].join("\n"))
    yield* Effect.acquireRelease(
      Effect.sync(() => spawn(nginxPath, ["-p", dir, "-e", `${dir}/error.log`, "-c", `${dir}/nginx.conf`], { stdio: "ignore" })),
      (child) => Effect.sync(() => {
        child.kill()
        rmSync(dir, { recursive: true, force: true })
      })
    )
    // Up once it answers through to the app.
    yield* get(port, "/healthz").pipe(
      Effect.filterOrFail((response) => response.status === 200),
      Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("5 seconds")))
    )
    return { port, accessLog: join(dir, "access.log") }
  })

const get = (port: number, path: string) => sendRaw({ port, head: requestHead("GET", path, { connection: "close" }) })

layer(serverWith(servicesOn(pglite)), { excludeTestServices: true })("deploy/nginx.conf in Debian's nginx", (it) => {
  it.scoped.skipIf(nginxMissing)(`nginx refuses every spelling of /metrics itself, and passes the rest (needs ${nginxPath}; skipped without it)`, () =>
    Effect.gen(function* () {
      const { port } = yield* nginxInFrontOf(yield* serverPort)
      for (const path of metricsSpellings) {
        const response = yield* get(port, path)
        // nginx's own page, not the app's JSON: the request never reached the app.
        expect([path, response.status, response.body.includes("<center>nginx")]).toEqual([path, 404, true])
      }
      const passed = yield* get(port, "/metricsboard")
      expect([passed.status, passed.body]).toEqual([404, JSON.stringify({ error: "Not found" })])
      expect((yield* get(port, "/readyz")).status).toBe(200)
    }))

  it.scoped.skipIf(nginxMissing)("nginx's access log has each request's path, never its query or Referer (an invitation's token)", () =>
    Effect.gen(function* () {
      const { port, accessLog } = yield* nginxInFrontOf(yield* serverPort)
      const token = "InvitationTokenXyz123"
      yield* sendRaw({ port, head: requestHead("GET", `/dashboard/invitation?token=${token}`, { connection: "close", referer: `http://x/?csrf=${token}` }) })
      const logged = yield* Effect.sync(() => readFileSync(accessLog, "utf8")).pipe(
        Effect.filterOrFail((text) => text.includes("/dashboard/invitation")),
        Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("5 seconds")))
      )
      expect(logged).toContain('"GET /dashboard/invitation HTTP/1.1"')
      expect(logged).not.toContain(token)
    }))
})
