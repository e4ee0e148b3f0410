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

/** Printed as `target: ...` lines, which `run.ts` gathers into its summary. */
export const verdict = (what: string, measured: string, target: string, pass: boolean): void => {
  console.log(`target: ${pass ? "PASS" : "FAIL"} | ${what} | measured ${measured} | target ${target}`)
}

export const footer = (): void => {
  console.log(`\nload at the end: ${loadNow()} (1, 5, 15 min)`)
}

export const quick = process.argv.includes("--quick")
