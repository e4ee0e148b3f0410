/**
 * deploy/nginx.conf for an nginx on loopback (Debian's own in test/operations/nginx.test.ts, the
 * compose stack's proxy container on the host network in test/container/stack.test.ts).
 */
import { readFileSync } from "node:fs"

/** deploy/nginx.conf as it stands. */
export const deployConf = readFileSync(new URL("../../deploy/nginx.conf", import.meta.url), "utf8")

const replaceOnce = (text: string, pattern: RegExp, replacement: string) => {
  if (!pattern.test(text)) throw new Error(`deploy/nginx.conf no longer has ${String(pattern)}: update test/support/nginxConf.ts`)
  return text.replace(pattern, replacement)
}

/**
 * deploy/nginx.conf with only what ties it to compose's network changed: the service name `app`
 * (found through Docker's DNS) becomes the replicas' loopback ports, and it listens on a loopback
 * port of its own. Every location and rule is the file's own.
 */
export const loopbackConf = (listenPort: number, appPorts: ReadonlyArray<number>) => {
  const withoutResolver = replaceOnce(deployConf, /^resolver .*$/m, "# (no resolver: the upstreams are addresses)")
  const upstreams = replaceOnce(withoutResolver, /^\s*server app:3000;$/m, appPorts.map((port) => `  server 127.0.0.1:${port};`).join("\n"))
  return [
    "# Generated from deploy/nginx.conf for host networking, where Docker's DNS names do not exist:",
    "# the upstream `app:3000` becomes each replica's 127.0.0.1 port, and nginx listens on its own.",
    replaceOnce(upstreams, /listen 80;/, `listen 127.0.0.1:${listenPort};`)
  ].join("\n")
}
