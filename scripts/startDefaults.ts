/**
 * The runtime settings `npm start` gives the service: each `NAME=${NAME:-default}` of the start
 * script in package.json (README, "Runtime settings"), by name. Read by the test that keeps the
 * Docker image on the same values and by the benches, which start the service as users do.
 */
export const startDefaultsOf = (startScript: string): Readonly<Record<string, string>> =>
  Object.fromEntries([...startScript.matchAll(/(\w+)=\$\{\1:-([^}]*)\}/g)].map(([, name, value]) => [name!, value!]))
