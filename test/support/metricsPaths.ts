/**
 * Spellings of `/metrics` the router serves as `/metrics` (it ignores case, a trailing or doubled
 * slash, dot segments, anything after `;` or `#`, and decodes `%6D`): the public proxy must refuse
 * every one (deploy/nginx.conf).
 */
export const metricsSpellings = [
  "/metrics", "/metrics/", "/Metrics", "/METRICS/", "/metrics;x", "/metrics;jsessionid=1/", "//metrics", "/metrics//",
  "/%6Detrics", "/./metrics", "/x/../metrics", "/api/../metrics", "/metrics#x"
]
