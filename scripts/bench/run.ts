/**
 * All the benchmarks, one after the other (never two at once: they would measure each other), each
 * in its own process. Their output is passed through; the `target:` lines are repeated at the end.
 *
 *   bun run bench                      # everything, on the working tree
 *   bun run bench -- --quick           # fewer requests, for a smoke run
 *   bun run bench -- memory early413   # some of them
 *   BENCH_REV=HEAD bun run bench       # the code of one commit (see lib/source.ts)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun run bench
 *                                      # also the service on PostgreSQL (see lib/targets.ts)
 */
// First: this process, and so each bench it starts, runs as a load generator should.
import "./lib/loadGenerator.ts"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { parseFigure } from "./lib/report.ts"
import { table } from "./lib/stats.ts"

const here = path.dirname(fileURLToPath(import.meta.url))
const all = ["overhead", "memory", "rest", "slowModel", "early413", "modelBytes", "stages", "work", "slowClients", "batch", "webhookClaim"] as const
type Bench = (typeof all)[number]

const isBench = (name: string): name is Bench => (all as ReadonlyArray<string>).includes(name)

const args = process.argv.slice(2)
const flags = args.filter((a) => a.startsWith("--"))
const asked = args.filter((a) => !a.startsWith("--"))
const unknown = asked.filter((a) => !isBench(a))
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; known: ${all.join(", ")}`)
  process.exit(1)
}
const chosen: ReadonlyArray<Bench> = asked.length === 0 ? all : asked.filter(isBench)

// One commit for every bench: `HEAD` may move while they run.
const env: Record<string, string | undefined> = { ...process.env }
const rev = env["BENCH_REV"]
if (rev !== undefined && rev !== "") {
  const parsed = Bun.spawnSync({ cmd: ["git", "rev-parse", "--verify", `${rev}^{commit}`], cwd: here, stdout: "pipe", stderr: "pipe" })
  if (parsed.exitCode !== 0) {
    console.error(`BENCH_REV=${rev}: ${parsed.stderr.toString().trim()}`)
    process.exit(1)
  }
  env["BENCH_REV"] = parsed.stdout.toString().trim()
}

const verdicts: Array<{ readonly bench: Bench; readonly line: string }> = []
const failures: Array<string> = []

for (const bench of chosen) {
  const child = Bun.spawn({
    cmd: [process.execPath, path.join(here, `${bench}.ts`), ...flags],
    stdin: "ignore",
    stdout: "pipe",
    stderr: "inherit",
    env
  })
  // A bench bounds itself; this is the backstop.
  const backstop = setTimeout(() => child.kill("SIGTERM"), 30 * 60_000)
  const decoder = new TextDecoder()
  let pending = ""
  for await (const chunk of child.stdout) {
    const text = decoder.decode(chunk, { stream: true })
    process.stdout.write(text)
    pending += text
    const lines = pending.split("\n")
    pending = lines.pop() ?? ""
    verdicts.push(...lines.filter((l) => l.startsWith("target: ")).map((line) => ({ bench, line })))
  }
  clearTimeout(backstop)
  const code = await child.exited
  if (code !== 0) failures.push(`${bench} exited with ${code}`)
}

console.log("\n## Summary: every figure against its target (floors and baselines measured in the same run)\n")
console.log(table(
  ["figure", "measured", "floor or baseline", "ratio", "target", "result", "bench"],
  verdicts.map(({ bench, line }) => {
    const { result, fields } = parseFigure(line)
    const f = (name: string) => fields[name] || "-"
    return [f("what"), f("measured"), f("reference"), f("ratio"), f("target"), result === "n/a" ? "not measured" : `**${result}**`, bench]
  })
))
for (const line of failures) console.log(`- ERROR: ${line}`)
process.exit(failures.length > 0 ? 1 : 0)
