/**
 * Node.js itself, as integrators run it: under `bun --bun` (how the tests run), `node` on the PATH
 * is Bun, whose fetch behaves otherwise. The first `node` on the PATH that is not Bun; none when
 * the machine has no Node.js (the README's two commands need it, so CI has it).
 */
import * as fs from "node:fs"
import * as path from "node:path"

const isNode = (candidate: string) =>
  fs.existsSync(candidate) &&
  Bun.spawnSync([candidate, "-p", "process.versions.bun === undefined"]).stdout.toString().trim() === "true"

export const realNode: string | undefined = (process.env.PATH ?? "")
  .split(path.delimiter)
  .map((dir) => path.join(dir, "node"))
  .find(isNode)
