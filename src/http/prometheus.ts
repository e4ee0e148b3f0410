/** Effect's metric snapshot in the Prometheus text exposition format (version 0.0.4). */
import type * as MetricPair from "effect/MetricPair"
import * as MetricState from "effect/MetricState"
import * as Option from "effect/Option"

const escape = (value: string) => value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll('"', '\\"')

const labels = (tags: ReadonlyArray<{ readonly key: string; readonly value: string }>, extra: Record<string, string> = {}) => {
  const all = [...tags.map((t) => [t.key, t.value] as const), ...Object.entries(extra)]
  return all.length === 0 ? "" : `{${all.map(([k, v]) => `${k}="${escape(v)}"`).join(",")}}`
}

const number = (value: number | bigint) =>
  typeof value === "bigint" ? value.toString() : Number.isFinite(value) ? String(value) : value > 0 ? "+Inf" : "-Inf"

/** One sample line per series; HELP and TYPE once per metric name. */
export const renderPrometheus = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>) => {
  const families = new Map<string, { type: string; help: string; lines: Array<string> }>()
  const family = (name: string, type: string, help: Option.Option<string>) => {
    const existing = families.get(name) ?? { type, help: Option.getOrElse(help, () => name), lines: [] }
    families.set(name, existing)
    return existing.lines
  }
  for (const { metricKey: key, metricState: state } of pairs) {
    const tags = key.tags
    if (MetricState.isCounterState(state)) {
      family(key.name, "counter", key.description).push(`${key.name}${labels(tags)} ${number(state.count)}`)
    } else if (MetricState.isGaugeState(state)) {
      family(key.name, "gauge", key.description).push(`${key.name}${labels(tags)} ${number(state.value)}`)
    } else if (MetricState.isHistogramState(state)) {
      const lines = family(key.name, "histogram", key.description)
      for (const [bound, count] of state.buckets) {
        lines.push(`${key.name}_bucket${labels(tags, { le: number(bound) })} ${count}`)
      }
      if (!state.buckets.some(([bound]) => bound === Number.POSITIVE_INFINITY)) {
        lines.push(`${key.name}_bucket${labels(tags, { le: "+Inf" })} ${state.count}`)
      }
      lines.push(`${key.name}_sum${labels(tags)} ${number(state.sum)}`, `${key.name}_count${labels(tags)} ${state.count}`)
    }
  }
  return [...families].map(([name, f]) => [`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type}`, ...f.lines].join("\n")).join("\n") + "\n"
}
