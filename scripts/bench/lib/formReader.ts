/**
 * The service's form reader, from whichever module the measured tree has: `src/http/upload.ts`
 * since the describe use case was split from HTTP, `src/http/multipart.ts` before (e.g. commit
 * 9ca9d2c). Same function, same signature in both, so `BENCH_REV` can compare across the split.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { source } from "./source.ts"

const file = ["src/http/upload.ts", "src/http/multipart.ts"].find((candidate) => fs.existsSync(path.join(source.root, candidate)))
if (file === undefined) throw new Error(`no form reader (src/http/upload.ts or src/http/multipart.ts) in ${source.root}`)

const reader: Pick<typeof import("../../../src/http/upload.ts"), "readDescribeForm"> = await import(path.join(source.root, file))
export const readDescribeForm = reader.readDescribeForm
