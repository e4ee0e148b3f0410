/** What every bench prints first and last: the machine, the command, and the targets' verdicts. */
import { describeMachine, loadNow, machine } from "./machine.ts"
import { source } from "./source.ts"

/** The bench settings given in the environment, as they would be typed before the command. */
const settings = ["BENCH_REV", "BENCH_SOURCE_DIR", "BENCH_DATABASE_URL", "BENCH_SERVICE_FLAGS"]
  .flatMap((name) => {
    const value = process.env[name]
    return value === undefined || value === "" ? [] : [`${name}=${/\s/.test(value) ? JSON.stringify(value) : value}`]
  })
  .join(" ")

export const header = (title: string, command: string): void => {
  console.log(`\n## ${title}\n`)
  console.log("```")
  console.log(`command: ${settings === "" ? "" : `${settings} `}${command}`)
  console.log(`code:    ${source.label}`)
  console.log(describeMachine(machine()))
  console.log("```\n")
}

/** One figure against its target; `pass` undefined when it could not be measured here. */
export interface Figure {
  readonly what: string
  readonly measured: string
  /** The floor or baseline it is compared with, measured in the same run ("" when none). */
  readonly reference?: string
  /** `measured / reference` ("" when none). */
  readonly ratio?: string
  readonly target: string
  readonly pass: boolean | undefined
}

const fields = ["what", "measured", "reference", "ratio", "target"] as const

/**
 * Printed as one `target: ` line, which `run.ts` gathers into its summary table: the result, then
 * `name=value` fields separated by ` | ` (no field holds one).
 */
export const figure = (f: Figure): void => {
  const result = f.pass === undefined ? "n/a" : f.pass ? "PASS" : "FAIL"
  console.log(`target: ${result} | ${fields.map((name) => `${name}=${f[name] ?? ""}`).join(" | ")}`)
}

/** A figure without a floor or baseline. */
export const verdict = (what: string, measured: string, target: string, pass: boolean): void =>
  figure({ what, measured, target, pass })

/** A `target: ` line read back: the result and its fields. */
export const parseFigure = (line: string): { readonly result: string; readonly fields: Readonly<Record<string, string>> } => {
  const [result = "", ...rest] = line.slice("target: ".length).split(" | ")
  return {
    result,
    fields: Object.fromEntries(rest.map((part) => [part.slice(0, part.indexOf("=")), part.slice(part.indexOf("=") + 1)]))
  }
}

export const footer = (): void => {
  console.log(`\nload at the end: ${loadNow()} (1, 5, 15 min)`)
}

export const quick = process.argv.includes("--quick")
