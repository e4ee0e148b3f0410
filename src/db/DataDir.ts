/**
 * The embedded database's folder is the service user's alone (README "Operations"): its files hold
 * the signing secret, dashboard sessions and CSRF tokens in clear, so no other local user may read
 * or write any of them. The folder is 0700 and everything in it 0600 (0700 for folders).
 */
import type { PGlite } from "@electric-sql/pglite"
import { NodeFS } from "@electric-sql/pglite/nodefs"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { fdatasyncSync, fstatSync, fsyncSync, type Stats } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { onDataDir } from "./DataDirUnusable.ts"

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

/**
 * `DATA_DIR` holds files but no database: a mistaken `DATA_DIR=/srv` or `$HOME`, which making the
 * folder owner-only would have changed, every file in it (found by review).
 */
export class DataDirNotDatabase extends Schema.TaggedError<DataDirNotDatabase>()("DataDirNotDatabase", {
  path: Schema.String,
  entries: Schema.Array(Schema.String)
}) {
  override get message() {
    return `the data folder ${this.path} holds other files (${this.entries.slice(0, 3).join(", ")}${this.entries.length > 3 ? ", ..." : ""}) ` +
      "and no database; nothing in it was changed: set DATA_DIR to the service's data folder, or to an empty or new one"
  }
}

/**
 * What a data folder may hold without a database yet: the service's own files (DataDirLock.ts,
 * DatabaseMarker.ts), what PostgreSQL's creation writes before `PG_VERSION` (a creation cut short
 * is finished at the next start), and what a fresh volume or a repository holds (`lost+found`,
 * hidden files such as `.gitkeep`).
 */
const mayPrecedeDatabase = (name: string) =>
  ["lock", "synced", "database.json", "base", "global", "lost+found"].includes(name) || name.startsWith("lock.json") ||
  name.startsWith("pg_") || name.startsWith("postgresql.") || name.startsWith(".")

/**
 * Creates the folder (0700) if it is missing; refuses one that belongs to another user, or that
 * holds other files and no database (`PG_VERSION`), before anything in it is changed.
 */
export const claim = (dataDir: string) =>
  Effect.gen(function* () {
    yield* onDataDir(dataDir, () => fs.mkdir(dataDir, { recursive: true, mode: 0o700 }))
    const user = process.getuid?.()
    // Before it is read: another user's 0700 folder cannot be, and the refusal says whose it is.
    const owner = (yield* onDataDir(dataDir, () => fs.stat(dataDir))).uid
    if (user !== undefined && owner !== user) return yield* new DataDirNotOwned({ path: path.resolve(dataDir), owner, user })
    const entries = yield* onDataDir(dataDir, () => fs.readdir(dataDir))
    const others = entries.filter((entry) => !mayPrecedeDatabase(entry)).sort()
    if (others.length > 0 && !entries.includes("PG_VERSION")) {
      return yield* new DataDirNotDatabase({ path: path.resolve(dataDir), entries: others })
    }
  })

/** Whether a file system call failed because the entry went away meanwhile. */
const vanished = (error: unknown) => error instanceof Error && "code" in error && error.code === "ENOENT"

const unlessVanished = <A>(step: Promise<A>): Promise<A | undefined> =>
  step.catch((error: unknown) => vanished(error) ? undefined : Promise.reject(error))

/**
 * Visits `entry` and all it holds in name order, a folder after its entries (links are not
 * followed); the visits' sum. An entry that goes away meanwhile (another process's short-lived lock
 * file) is passed over.
 */
const eachEntry = async (entry: string, visit: (entry: string, stat: Stats) => Promise<number>): Promise<number> => {
  const stat = await unlessVanished(fs.lstat(entry))
  if (stat === undefined || stat.isSymbolicLink()) return 0
  let sum = 0
  if (stat.isDirectory()) {
    for (const child of ((await unlessVanished(fs.readdir(entry))) ?? []).sort()) sum += await eachEntry(path.join(entry, child), visit)
  }
  return sum + await visit(entry, stat)
}

/** Takes the group's and others' bits off `entry` and all it holds; how many had some. */
const restrict = (entry: string): Promise<number> =>
  eachEntry(entry, async (each, stat) => {
    if ((stat.mode & othersBits) === 0) return 0
    await unlessVanished(fs.chmod(each, ownerOnly(stat.mode & 0o777)))
    return 1
  })

/** Makes what was written to an open file, or a folder's entries, survive a crash of the machine. */
export type Sync = (fd: number) => void

/**
 * `fdatasync` for a file, as PostgreSQL's own default for its log: its segments are written in
 * place, and `fsync` would also wait for their times to be journaled (a one-row update on ext4 took
 * 0.9 ms with `fsync`, 0.8 with `fdatasync`, 0.5 with neither, medians of 6 rounds of 100). `fsync`
 * for a folder, whose entries are what is synced.
 */
export const syncToDisk: Sync = (fd) => (fstatSync(fd).isDirectory() ? fsyncSync(fd) : fdatasyncSync(fd))

/**
 * Syncs every file and folder of `dataDir`, each folder after its entries, then the folder that
 * holds it: what PGlite's creation wrote without syncing (`pgliteCreate.ts`). How many were synced.
 */
export const syncFolder = async (dataDir: string, sync: Sync = syncToDisk): Promise<number> => {
  const synced = await eachEntry(dataDir, (entry) => syncEntry(entry, sync))
  return synced + await syncEntry(path.dirname(path.resolve(dataDir)), sync)
}

/** Syncs one file or folder by its path: 1, or 0 when it went away meanwhile. */
const syncEntry = async (entry: string, sync: Sync): Promise<number> => {
  const handle = await unlessVanished(fs.open(entry, "r"))
  if (handle === undefined) return 0
  try {
    sync(handle.fd)
    return 1
  } finally {
    await handle.close()
  }
}

/** `DATA_DIR/synced`: the folder was synced whole once (`syncFolderOnce`). */
const syncedMark = (dataDir: string) => path.join(dataDir, "synced")

/**
 * Syncs the folder whole unless that was done: after its creation (`pgliteCreate.ts`), or at the
 * first start on a folder whose creation was cut short, or that an older version made without
 * syncing. The mark is written, and synced, last.
 */
export const syncFolderOnce = async (dataDir: string, sync: Sync = syncToDisk): Promise<void> => {
  const mark = syncedMark(dataDir)
  if (await fs.access(mark).then(() => true, () => false)) return
  await syncFolder(dataDir, sync)
  await fs.writeFile(mark, "", { mode: 0o600 })
  await syncEntry(mark, sync)
  await syncEntry(dataDir, sync)
}

/**
 * Makes an existing folder owner-only again (one written by an earlier version, or by hand), and
 * says so in the log: the files were readable by others until now.
 */
export const repair = (dataDir: string) =>
  Effect.promise(async () => restrict(await fs.realpath(dataDir))).pipe(
    Effect.tap((repaired) =>
      repaired > 0
        ? Effect.logWarning("made the data folder owner-only: its files were open to other users").pipe(Effect.annotateLogs({ dataDir, repaired }))
        : Effect.void
    )
  )

/** What PGlite's Emscripten `NODEFS` does with modes and syncs, as far as it is changed here. */
interface EmscriptenNodeFs {
  node_ops: {
    readonly mknod: (parent: unknown, name: string, mode: number, dev: number) => unknown
    readonly setattr: (node: unknown, attr: { readonly mode?: number }) => void
  }
  stream_ops: {
    readonly setattr: (stream: EmscriptenStream, attr: { readonly mode?: number }) => void
    readonly fsync?: (stream: EmscriptenStream) => number
  }
  /** Runs a Node.js file system call, its error turned into the errno PostgreSQL sees. */
  readonly tryFSOperation: <A>(operation: () => A) => A
}

interface EmscriptenStream {
  /** The Node.js descriptor: every node, folders too, is opened with `fs.openSync`. */
  readonly nfd: number
}

/**
 * PGlite's files on disk, owner-only and synced when PostgreSQL asks.
 *
 * Owner-only: the process umask is not enough. PostgreSQL (as WASM) sets each file's mode itself
 * with an explicit `chmod`, 0666 for most of them, which no umask touches; so every mode it creates
 * or sets passes through `ownerOnly` first.
 *
 * Synced: PGlite's Emscripten answers `fsync` on a folder's files with nothing done (and
 * `fdatasync` everywhere), and starts PostgreSQL with `fsync = off`: a commit answered, even the
 * database's consistency, lasted only as long as the machine did. Here `fsync` reaches the disk,
 * and `pgliteOptions` starts PostgreSQL with it on (PostgreSQL's own default).
 */
export class DataDirNodeFS extends NodeFS {
  constructor(dataDir: string, private readonly sync: Sync = syncToDisk) {
    super(dataDir)
  }

  override async init(pg: PGlite, opts: Parameters<NodeFS["init"]>[1]) {
    const { emscriptenOpts } = await super.init(pg, opts)
    const sync = this.sync
    const adjust = (mod: { readonly NODEFS: unknown }) => {
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
      nodefs.stream_ops = {
        ...nodefs.stream_ops,
        setattr: (stream, attr) => streamSetattr(stream, restricted(attr)),
        // A failure reaches PostgreSQL as its errno, and PostgreSQL stops rather than go on (PANIC).
        fsync: (stream) => nodefs.tryFSOperation(() => (sync(stream.nfd), 0))
      }
    }
    // Before NodeFS's own step, which mounts the folder with the operations as they are then.
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [adjust, ...(emscriptenOpts.preRun ?? [])] } }
  }
}
