/**
 * deploy/nginx.conf keeps `/metrics` off the public proxy under every spelling the service's router
 * takes for it. nginx is not run here: the test reads the rule and applies it as nginx does, to the
 * path decoded, dot segments resolved and slashes merged, case ignored for `~*`.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { metricsSpellings } from "../support/metricsPaths.ts"

const conf = readFileSync(new URL("../../deploy/nginx.conf", import.meta.url), "utf8")

/** The regex locations answering 404, as JavaScript regexes (the ones used are PCRE and JS alike). */
const blocked = [...conf.matchAll(/location\s+(~\*?)\s+(\S+)\s*\{\s*return\s+404;\s*\}/g)].map(
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
