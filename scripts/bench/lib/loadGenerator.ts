/**
 * The process that sends a bench's load is an instrument, not what is measured. Bun's allocator
 * gives freed memory back to the system 100 ms after it is freed (its default `purge_delay`), so a
 * client sending one 5 MB upload every 100 ms faulted its copy of the body in page by page every
 * time: the transport floor measured back to back took 3.1 ms, and 42.5 ms with 100 ms between
 * requests (p50 of 30, 12-MP JPEG to the baseline's `/null`), and a 12-MP describe waited up to
 * 35 ms for its own client to send it. Its requests are as far apart as the service takes, so that
 * cost counted against the service and not against the floor it is compared with.
 *
 * So the benches of `run.ts` run with `MIMALLOC_PURGE_DELAY=1000`, and with 2,048 `fetch` requests
 * at once (Bun's default is 256; the slow-model bench sends 1,000). A process that imports this
 * module without them starts itself again with them and only waits for that second process,
 * passing on signals and the exit status: none of the bench's own code runs in the first. `run.ts`
 * does so, and the benches it starts inherit them. The servers under test still get the values the
 * bench was started with (`startedWith`, lib/targets.ts).
 */
import * as os from "node:os"

/** The load generator's own settings. */
const settings = { MIMALLOC_PURGE_DELAY: "1000", BUN_CONFIG_MAX_HTTP_REQUESTS: "2048" } as const

/** Where the values the bench was started with are kept; set once the settings are applied. */
const originalVariable = "BENCH_STARTED_WITH"

const kept = process.env[originalVariable]
if (kept === undefined) {
  const original = Object.fromEntries(Object.keys(settings).map((name) => [name, process.env[name] ?? null]))
  const again = Bun.spawn({
    // The same Bun flags (a profiler's, say) and arguments.
    cmd: [process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    env: { ...process.env, ...settings, [originalVariable]: JSON.stringify(original) },
    stdio: ["inherit", "inherit", "inherit"]
  })
  // A signal meant for the bench (a `timeout`, a `kill`) reaches it; it stops its servers itself.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => again.kill(signal))
  const status = await again.exited
  const code = again.signalCode
  const signal = typeof code === "string" ? os.constants.signals[code] : code ?? undefined
  process.exit(signal === undefined ? status : 128 + signal)
}

const original: Readonly<Record<string, unknown>> = JSON.parse(kept ?? "{}")

/**
 * The environment as the bench was started, without the load generator's settings: what the
 * servers under test are given (`MIMALLOC_PURGE_DELAY=100` still measures the service with Bun's
 * default, `BUN_CONFIG_MAX_HTTP_REQUESTS=256` with Bun's own limit).
 */
export const startedWith: Readonly<Record<string, string | undefined>> = Object.fromEntries(
  Object.entries(process.env)
    .filter(([name]) => name !== originalVariable && !(name in settings))
    .concat(Object.keys(settings).flatMap((name) => {
      const value = original[name]
      return typeof value === "string" ? [[name, value]] : []
    }))
)
