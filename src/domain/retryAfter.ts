/**
 * How long an endpoint asked to be left alone before the next attempt, in milliseconds: OpenAI's
 * `retry-after-ms` first (finer, and what its own SDK reads first), then `Retry-After` (RFC 9110
 * §10.2.3: delay-seconds, or an HTTP date, read against `now`). Undefined when neither is given
 * or readable.
 */
export const retryAfterMillis = (header: (name: string) => string | null, now: number): number | undefined => {
  const millis = header("retry-after-ms")?.trim()
  if (millis !== undefined && /^\d+(\.\d+)?$/.test(millis)) return Number(millis)
  const value = header("retry-after")?.trim()
  if (value === undefined || value === "") return undefined
  if (/^\d+$/.test(value)) return Number(value) * 1000
  // An HTTP date opens with the day's name in all three of its forms; `Date.parse` alone would read "-5".
  const date = /^[A-Za-z]/.test(value) ? Date.parse(value) : Number.NaN
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
