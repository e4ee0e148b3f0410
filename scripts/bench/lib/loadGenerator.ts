/**
 * The process that sends a bench's load is an instrument, not what is measured. Bun's allocator
 * gives freed memory back to the system 100 ms after it is freed (its default `purge_delay`), so a
 * client sending one 5 MB upload every 100 ms faulted its copy of the body in page by page every
 * time: the transport floor measured back to back took 3.1 ms, and 42.5 ms with 100 ms between
 * requests (p50 of 30, 12-MP JPEG to the baseline's `/null`), and a 12-MP describe waited up to
 * 35 ms for its own client to send it. Its requests are as far apart as the service takes, so that
 * cost counted against the service and not against the floor it is compared with.
 *
 * So every bench's own process runs with `MIMALLOC_PURGE_DELAY=1000`, and with 2,048 `fetch`
 * requests at once (Bun's default is 256; the slow-model bench sends 1,000): a bench (or `run.ts`)
 * started without them starts itself again with them, when this module is first imported, before
 * anything else runs; the benches `run.ts` starts inherit them. The servers under test still get
 * the values the bench was started with (`startedWith`, lib/targets.ts).
 */

/** The load generator's own settings. */
const settings = { MIMALLOC_PURGE_DELAY: "1000", BUN_CONFIG_MAX_HTTP_REQUESTS: "2048" } as const

type Setting = keyof typeof settings

/** Where the values the bench was started with are kept; set once the settings are applied. */
const originalVariable = "BENCH_STARTED_WITH"

/** The environment of a load generator started from `env`: the settings, and `env`'s own values kept aside. */
const loadGeneratorEnv = (env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> => {
  const original = Object.fromEntries(Object.keys(settings).map((name) => [name, env[name] ?? null]))
  return {
    ...env,
    ...settings,
    // A limit asked for is kept: the client's limit is not what is measured.
    BUN_CONFIG_MAX_HTTP_REQUESTS: env["BUN_CONFIG_MAX_HTTP_REQUESTS"] ?? settings.BUN_CONFIG_MAX_HTTP_REQUESTS,
    [originalVariable]: JSON.stringify(original)
  }
}

const kept = process.env[originalVariable]
if (kept === undefined) {
  // Synchronous, so that no other module of the bench runs in this process first.
  const again = Bun.spawnSync({
    cmd: [process.execPath, ...process.argv.slice(1)],
    env: loadGeneratorEnv(process.env),
    stdio: ["ignore", "inherit", "inherit"]
  })
  process.exit(again.exitCode ?? 1)
}

const original: Readonly<Record<string, unknown>> = JSON.parse(kept ?? "{}")

/**
 * The environment as the bench was started, without the load generator's settings: what the
 * servers under test are given (`MIMALLOC_PURGE_DELAY=100` still measures the service with Bun's
 * default).
 */
export const startedWith: Readonly<Record<string, string | undefined>> = Object.fromEntries(
  Object.entries(process.env)
    .filter(([name]) => name !== originalVariable && !(name in settings))
    .concat(Object.keys(settings).flatMap((name) => {
      const value = original[name as Setting]
      return typeof value === "string" ? [[name, value]] : []
    }))
)
