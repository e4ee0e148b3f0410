/**
 * Which code the benches run. By default the working tree, as `npm start` would. With
 * `BENCH_REV=<commit>` (e.g. `HEAD`), that commit's `src/` is extracted (git archive) into
 * `.artifacts/bench/<sha>/` with a copy of the current `baseline.ts` beside it, and both servers
 * and the CLI run from there: the figures then belong to one commit, whatever is being edited.
 * Modules still resolve from the project's `node_modules` (the folder is inside the project).
 * With `BENCH_SOURCE_DIR=<folder inside the project>` (holding `src/` and
 * `scripts/bench/baseline.ts`), the children run from that folder: a way to measure a candidate
 * change without touching the working tree.
 */
// First: a bench started by hand starts again as a load generator before anything below runs.
import "./loadGenerator.ts"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const projectRoot = fileURLToPath(new URL("../../..", import.meta.url))

const git = (...args: ReadonlyArray<string>): string => {
  const ran = Bun.spawnSync({ cmd: ["git", ...args], cwd: projectRoot, stdout: "pipe", stderr: "pipe" })
  if (ran.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${ran.stderr.toString()}`)
  return ran.stdout.toString().trim()
}

export interface Source {
  /** The folder the children run in (`src/main.ts`, `src/cli/main.ts`, `scripts/bench/baseline.ts`). */
  readonly root: string
  /** What was measured, for the report. */
  readonly label: string
}

const fromRev = (rev: string): Source => {
  const sha = git("rev-parse", "--verify", `${rev}^{commit}`)
  const root = path.join(projectRoot, ".artifacts", "bench", sha)
  if (!fs.existsSync(path.join(root, "src", "main.ts"))) {
    fs.mkdirSync(root, { recursive: true })
    const archive = Bun.spawnSync({ cmd: ["git", "archive", "--format=tar", sha, "src", "package.json", "tsconfig.json"], cwd: projectRoot, stdout: "pipe" })
    if (archive.exitCode !== 0) throw new Error(`git archive ${sha} failed`)
    const untar = Bun.spawnSync({ cmd: ["tar", "-x", "-C", root], stdin: archive.stdout, stderr: "pipe" })
    if (untar.exitCode !== 0) throw new Error(`tar: ${untar.stderr.toString()}`)
  }
  fs.mkdirSync(path.join(root, "scripts", "bench"), { recursive: true })
  fs.copyFileSync(path.join(projectRoot, "scripts", "bench", "baseline.ts"), path.join(root, "scripts", "bench", "baseline.ts"))
  return { root, label: `commit ${sha.slice(0, 10)} (${git("log", "-1", "--format=%s", sha).slice(0, 72)})` }
}

const fromWorkingTree = (): Source => {
  const head = git("rev-parse", "--short=10", "HEAD")
  const dirty = git("status", "--porcelain", "--", "src").length > 0
  return { root: projectRoot, label: `working tree at ${head}${dirty ? " with uncommitted changes in src/" : ""}` }
}

const fromFolder = (folder: string): Source => {
  const root = path.resolve(projectRoot, folder)
  if (!fs.existsSync(path.join(root, "src", "main.ts"))) throw new Error(`BENCH_SOURCE_DIR: no src/main.ts in ${root}`)
  return { root, label: `folder ${path.relative(projectRoot, root)}` }
}

const rev = process.env["BENCH_REV"]
const folder = process.env["BENCH_SOURCE_DIR"]
export const source: Source =
  folder !== undefined && folder !== "" ? fromFolder(folder) : rev === undefined || rev === "" ? fromWorkingTree() : fromRev(rev)
