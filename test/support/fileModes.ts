/** Permission bits of a folder tree, to check the data folder is the service user's alone. */
import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"

interface Entry {
  readonly entry: string
  readonly kind: "dir" | "file"
  readonly mode: number
}

/** An entry that went away while it was looked at (PostgreSQL renames and removes its temporary files). */
const gone = (error: unknown) => (error as NodeJS.ErrnoException).code === "ENOENT"

/** Every entry under `dir` (the folder itself included) with its permission bits; links left out. */
const modes = async (dir: string): Promise<ReadonlyArray<Entry>> => {
  try {
    const stat = await fs.lstat(dir)
    if (stat.isSymbolicLink()) return []
    const own: Entry = { entry: dir, kind: stat.isDirectory() ? "dir" : "file", mode: stat.mode & 0o777 }
    if (!stat.isDirectory()) return [own]
    const children = await Promise.all((await fs.readdir(dir)).map((child) => modes(path.join(dir, child))))
    return [own, ...children.flat()]
  } catch (error) {
    if (gone(error)) return []
    throw error
  }
}

export const entriesOf = (dir: string) => Effect.promise(() => modes(dir))

/** How many entries there are, and those not owner-only (0700 for folders, 0600 for files), as `path mode`. */
export const looseModes = (dir: string) =>
  Effect.map(entriesOf(dir), (entries) => ({
    count: entries.length,
    loose: entries.filter(({ kind, mode }) => mode !== (kind === "dir" ? 0o700 : 0o600)).map((e) => `${e.entry} ${e.mode.toString(8)}`)
  }))
