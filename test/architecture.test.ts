/**
 * The import rules of docs/architecture.md, read from the import statements of every file in
 * `src/`: the domain imports only the domain (and `effect`, and Node's hashing and address parsing); services never import `src/http`;
 * nothing under `src/dashboard` imports `src/http/routes`; Effect's packages are imported by module,
 * not through their index. A failure names each import that breaks a rule.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const src = fileURLToPath(new URL("../src", import.meta.url))

interface Import {
  /** The importing file, relative to `src/`. */
  readonly file: string
  readonly specifier: string
  /** The imported file relative to `src/`, or undefined for a package. */
  readonly target: string | undefined
}

// `import ... from "x"`, `export ... from "x"` (over several lines too), `import "x"`, `import("x")`.
const specifiers = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g

const importsOf = (file: string): ReadonlyArray<Import> => {
  const text = fs.readFileSync(path.join(src, file), "utf8")
  return [...text.matchAll(specifiers)].map((match) => {
    const specifier = match[1] ?? ""
    const target = specifier.startsWith(".")
      ? path.relative(src, path.resolve(path.dirname(path.join(src, file)), specifier))
      : undefined
    return { file, specifier, target }
  })
}

const files = (fs.readdirSync(src, { recursive: true }) as Array<string>)
  .filter((file) => file.endsWith(".ts"))
  .map((file) => file.split(path.sep).join("/"))
const imports = files.flatMap(importsOf)

const under = (folder: string) => (file: string | undefined) => file !== undefined && file.split(path.sep).join("/").startsWith(`${folder}/`)
const show = (found: ReadonlyArray<Import>) => found.map(({ file, specifier }) => `src/${file} imports "${specifier}"`)

describe("import rules (docs/architecture.md)", () => {
  it("reads the imports of src/", () => {
    // A scan that found nothing would pass every rule below.
    expect(files.length).toBeGreaterThan(100)
    expect(imports.filter((i) => i.file === "http/routes/describe.ts" && i.target === "services/describeImage.ts")).toHaveLength(1)
  })

  it("src/domain imports only src/domain, effect and pure computations of Node (hashing, address parsing)", () => {
    const isEffect = (specifier: string) => specifier === "effect" || specifier.startsWith("effect/")
    // No I/O: a digest (idempotency.ts) and IP address parsing (publicAddress.ts) compute only.
    const pureNode = ["node:crypto", "node:net"]
    const broken = imports.filter((i) =>
      under("domain")(i.file) &&
      (i.target === undefined ? !isEffect(i.specifier) && !pureNode.includes(i.specifier) : !under("domain")(i.target))
    )
    expect(show(broken)).toEqual([])
  })

  it("src/services never imports src/http", () => {
    expect(show(imports.filter((i) => under("services")(i.file) && under("http")(i.target)))).toEqual([])
  })

  it("src/dashboard never imports src/http/routes", () => {
    expect(show(imports.filter((i) => under("dashboard")(i.file) && under("http/routes")(i.target)))).toEqual([])
  })

  it("Effect's packages are imported by module, never through the index that loads them whole", () => {
    const isIndex = (specifier: string) => specifier === "effect" || /^@effect\/[^/]+$/.test(specifier)
    expect(show(imports.filter((i) => isIndex(i.specifier)))).toEqual([])
  })
})
