// Restores, in package-lock.json, the entries of platform-specific optional packages (other
// operating systems and CPUs) that `npm install` leaves out when the registry it reaches lacks
// them. Without those entries `npm ci` refuses the lockfile as "not in sync". Each entry carries
// the `os`/`cpu`/`libc` of its name, so npm skips it on any other platform, as it always does.
// Run after `npm install` changes the lockfile: `node scripts/lockfile-platforms.mjs`.
import { readFileSync, writeFileSync } from "node:fs"

const file = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(file, "utf8"))
const packages = lock.packages

const osNames = ["android", "darwin", "freebsd", "linux", "openbsd", "openharmony", "win32", "sunos", "netbsd", "aix"]
const cpuNames = ["arm64", "arm", "x64", "ia32", "loong64", "ppc64", "riscv64", "s390x", "wasm32"]

/** `@rollup/rollup-linux-arm-musleabihf` -> { os: linux, cpu: arm, libc: musl }. */
const platformOf = (name) => {
  const words = name.split("/").pop().split("-")
  const os = words.find((w) => osNames.includes(w))
  const cpu = words.find((w) => cpuNames.includes(w))
  const libc = words.some((w) => w.startsWith("musl")) ? "musl" : words.some((w) => w.startsWith("gnu")) ? "glibc" : undefined
  return { os, cpu, libc }
}

let added = 0
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `${path === "" ? "" : `${path}/`}node_modules/${name}`
    const hoisted = `node_modules/${name}`
    if (packages[key] || packages[hoisted]) continue
    const { os, cpu, libc } = platformOf(name)
    if (!os || !cpu) continue
    packages[hoisted] = {
      version,
      cpu: [cpu],
      ...(libc ? { libc: [libc] } : {}),
      license: entry.license,
      optional: true,
      os: [os]
    }
    added++
  }
}

lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)))
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`lockfile: ${added} platform package entries restored`)
