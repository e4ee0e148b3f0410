/** What `/metrics` exposes (README, Operations: Metrics), as Effect metrics updated where things happen. */
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricKey from "effect/MetricKey"
import * as MetricLabel from "effect/MetricLabel"

/** Seconds, from 5 ms to about 80 s. */
const latency = MetricBoundaries.exponential({ start: 0.005, factor: 2, count: 15 })

const requests = MetricKey.counter("http_requests_total", { description: "Requests answered, by route and status" })
const requestSeconds = MetricKey.histogram("http_request_duration_seconds", latency, "Time to answer, by route")

interface RequestMetrics {
  readonly answered: Metric.Metric.Counter<number>
  readonly seconds: Metric.Metric.Histogram<number>
}

const requestMetricsMade = new Map<string, RequestMetrics>()

/**
 * The request metrics of one route and status, labelled in their keys and made once: a metric
 * labelled by `Metric.tagged` looks its key up in the registry on every update, a key built,
 * hashed and compared each time. Routes and statuses are few (requestLog.ts).
 */
export const requestMetrics = (route: string, status: number): RequestMetrics => {
  const name = `${route} ${status}`
  const known = requestMetricsMade.get(name)
  if (known !== undefined) return known
  const made = {
    answered: Metric.fromMetricKey(MetricKey.taggedWithLabels(requests, [MetricLabel.make("route", route), MetricLabel.make("status", String(status))])),
    seconds: Metric.fromMetricKey(MetricKey.tagged(requestSeconds, "route", route))
  }
  requestMetricsMade.set(name, made)
  return made
}

export const imageSeconds = Metric.histogram("image_prepare_duration_seconds", latency, "Time to check, decode and scale an upload")
export const modelSeconds = Metric.histogram("model_duration_seconds", latency, "Time the describer took")
export const creditsCharged = Metric.counter("credits_charged_total", { description: "Credits used by successful requests" })
export const reservationsOpen = Metric.gauge("credit_reservations_open", { description: "Credits held by requests in flight" })
export const imageBytesIn = Metric.counter("image_bytes_in_total", { description: "Bytes of uploaded images" })
export const imageBytesToModel = Metric.counter("model_image_bytes_sent_total", { description: "Bytes of images sent to the model" })
export const modelErrors = Metric.counter("model_errors_total", { description: "Describer failures, by kind" })
