/**
 * The service's form reader, from whichever module the measured tree has: `src/http/upload.ts`
 * since the describe use case was split from HTTP, `src/http/multipart.ts` before (e.g. commit
 * 9ca9d2c); named `readDescribeForm` before it was renamed `parseFormWithinBodyLimit`. Same
 * function, same signature in all, so `BENCH_REV` can compare across the split and the rename.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { source } from "./source.ts"

type Reader = typeof import("../../../src/http/upload.ts")["parseFormWithinBodyLimit"]

const file = ["src/http/upload.ts", "src/http/multipart.ts"].find((candidate) => fs.existsSync(path.join(source.root, candidate)))
if (file === undefined) throw new Error(`no form reader (src/http/upload.ts or src/http/multipart.ts) in ${source.root}`)

const module: { readonly parseFormWithinBodyLimit?: Reader; readonly readDescribeForm?: Reader } = await import(path.join(source.root, file))
const reader = module.parseFormWithinBodyLimit ?? module.readDescribeForm
if (reader === undefined) throw new Error(`no form reader exported by ${path.join(source.root, file)}`)
export const parseFormWithinBodyLimit: Reader = reader
