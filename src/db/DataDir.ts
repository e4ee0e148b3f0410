/**
 * The embedded database's folder is the service user's alone (README "Operations"): its files hold
 * the signing secret, dashboard sessions and CSRF tokens in clear, so no other local user may read
 * or write any of them. The folder is 0700 and everything in it 0600 (0700 for folders).
 */
import type { PGlite } from "@electric-sql/pglite"
import { NodeFS } from "@electric-sql/pglite/nodefs"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fs from "node:fs/promises"
import * as path from "node:path"

/** The permission bits of group and others: none of them are given. */
const othersBits = 0o077

const ownerOnly = (mode: number) => mode & ~othersBits

/** `DATA_DIR` belongs to another user: opening it would share the database with them. */
export class DataDirNotOwned extends Schema.TaggedError<DataDirNotOwned>()("DataDirNotOwned", {
  path: Schema.String,
  owner: Schema.Number,
  user: Schema.Number
}) {
  override get message() {
    return `the data folder ${this.path} belongs to uid ${this.owner}, not to uid ${this.user} that runs this process: ` +
      "run as its owner, give it to this user (chown -R), or set DATA_DIR to a folder of its own"
  }
}

/** Creates the folder (0700) if it is missing; refuses one that belongs to another user. */
export const claim = (dataDir: string) =>
  Effect.gen(function* () {
    yield* Effect.promise(() => fs.mkdir(dataDir, { recursive: true, mode: 0o700 }))
    const user = process.getuid?.()
    if (user === undefined) return // no POSIX owners on this platform
    const owner = (yield* Effect.promise(() => fs.stat(dataDir))).uid
    if (owner !== user) return yield* new DataDirNotOwned({ path: path.resolve(dataDir), owner, user })
  })

/** Whether a file system call failed because the entry went away meanwhile. */
const vanished = (error: unknown) => error instanceof Error && "code" in error && error.code === "ENOENT"

/**
 * Takes the group's and others' bits off `entry` and all it holds (links are not followed); how
 * many had some. An entry that goes away meanwhile (another process's short-lived lock file) is
 * passed over: it needs no repair.
 */
const restrict = async (entry: string): Promise<number> => {
  const stat = await fs.lstat(entry).catch((error: unknown) => vanished(error) ? undefined : Promise.reject(error))
  if (stat === undefined || stat.isSymbolicLink()) return 0
  const loose = (stat.mode & othersBits) !== 0
  if (loose) await fs.chmod(entry, ownerOnly(stat.mode & 0o777)).catch((error: unknown) => vanished(error) ? undefined : Promise.reject(error))
  if (!stat.isDirectory()) return loose ? 1 : 0
  let repaired = loose ? 1 : 0
  for (const child of await fs.readdir(entry)) repaired += await restrict(path.join(entry, child))
  return repaired
}

/**
 * Makes an existing folder owner-only again (one written by an earlier version, or by hand), and
 * says so in the log: the files were readable by others until now.
 */
export const repair = (dataDir: string) =>
  Effect.promise(async () => restrict(await fs.realpath(dataDir))).pipe(
    Effect.tap((repaired) =>
      repaired > 0
        ? Effect.logWarning("made the data folder owner-only: its files were open to other users", { dataDir, repaired })
        : Effect.void
    )
  )

/** What PGlite's Emscripten `NODEFS` does with modes: creating nodes and `chmod`. */
interface EmscriptenNodeFs {
  node_ops: {
    readonly mknod: (parent: unknown, name: string, mode: number, dev: number) => unknown
    readonly setattr: (node: unknown, attr: { readonly mode?: number }) => void
  }
  stream_ops: {
    readonly setattr: (stream: unknown, attr: { readonly mode?: number }) => void
  }
}

/**
 * PGlite's files on disk with owner-only modes. The process umask is not enough: PostgreSQL (as
 * WASM) sets each file's mode itself with an explicit `chmod`, 0666 for most of them, which no
 * umask touches; so every mode it creates or sets passes through `ownerOnly` first.
 */
export class OwnerOnlyNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS["init"]>[1]) {
    const { emscriptenOpts } = await super.init(pg, opts)
    const restrictModes = (mod: { readonly NODEFS: unknown }) => {
      // Emscripten's NODEFS is typed without its operations; these are the ones it has (PGlite 0.5).
      const nodefs = mod.NODEFS as EmscriptenNodeFs
      const { mknod, setattr } = nodefs.node_ops
      const streamSetattr = nodefs.stream_ops.setattr
      const restricted = <A extends { readonly mode?: number }>(attr: A): A =>
        attr.mode === undefined ? attr : { ...attr, mode: ownerOnly(attr.mode) }
      nodefs.node_ops = {
        ...nodefs.node_ops,
        mknod: (parent, name, mode, dev) => mknod(parent, name, ownerOnly(mode), dev),
        setattr: (node, attr) => setattr(node, restricted(attr))
      }
      nodefs.stream_ops = { ...nodefs.stream_ops, setattr: (stream, attr) => streamSetattr(stream, restricted(attr)) }
    }
    // Before NodeFS's own step, which mounts the folder with the operations as they are then.
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [restrictModes, ...(emscriptenOpts.preRun ?? [])] } }
  }
}
