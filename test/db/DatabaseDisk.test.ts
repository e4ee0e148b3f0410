/**
 * `/readyz` watches the room on the embedded database's disk: the layer over a folder reads that
 * folder's disk; a database in memory or on PostgreSQL is not checked.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { statfs } from "node:fs/promises"
import * as path from "node:path"
import * as Database from "../../src/db/Database.ts"
import { DatabaseDisk, diskState, folder, minimumFreeBytes } from "../../src/db/DatabaseDisk.ts"
import { tempDataDir } from "../support/process.ts"

const freeBytes = Effect.flatMap(DatabaseDisk, (disk) => disk.freeBytes)

describe("DatabaseDisk", () => {
  it.scopedLive("the embedded database in a folder reads the room on that folder's disk", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      const free = yield* Effect.provide(freeBytes, Database.layerPglite(dataDir, "cli").pipe(Layer.orDie))
      const disk = yield* Effect.promise(() => statfs(dataDir))
      // The same disk, give or take what other processes wrote in between.
      expect(Option.getOrThrow(free)).toBeGreaterThan(0)
      expect(Math.abs(Option.getOrThrow(free) - disk.bavail * disk.bsize)).toBeLessThan(64 * 1024 * 1024)
    }), 30_000)

  it.effect("a database in memory has no disk to check", () =>
    Effect.gen(function* () {
      expect(yield* Effect.provide(freeBytes, Database.layerPglite(undefined).pipe(Layer.orDie))).toEqual(Option.none())
    }), 30_000)

  it.effect("a folder whose disk cannot be read is not checked, rather than called full", () =>
    Effect.gen(function* () {
      expect(yield* Effect.provide(freeBytes, folder(path.join("/nonexistent", crypto.randomUUID())))).toEqual(Option.none())
    }))

  it("is full below one log segment of room", () => {
    expect(diskState(Option.some(minimumFreeBytes - 1))).toBe("full")
    expect(diskState(Option.some(0))).toBe("full")
    expect(diskState(Option.some(minimumFreeBytes))).toBe("ok")
    expect(diskState(Option.none())).toBe("not checked")
  })
})
