/**
 * The one way tests set the configuration: environment variables, read through the service's own
 * definition (src/config/Settings.ts), so defaults, validations and messages are the real ones.
 */
import { Layer } from "effect"
import * as Settings from "../../src/config/Settings.ts"
import { testSecretText } from "./keys.ts"

export type Variables = Readonly<Record<string, string | undefined>>

/**
 * What every test runs with unless it says otherwise: a known `API_KEY_SECRET` (test/support/keys.ts),
 * a short shutdown, a public address, and one trusted proxy, so each test visitor says its own
 * address (test/support/dashboard.ts).
 */
export const testVariables: Variables = {
  HOST: "127.0.0.1",
  API_KEY_SECRET: testSecretText,
  SHUTDOWN_TIMEOUT_MS: "5000",
  TRUSTED_PROXIES: "1",
  PUBLIC_URL: "https://images.example.com"
}

/** Every section's settings from `testVariables` and `variables` (an `undefined` entry unsets one); nothing from the process. */
export const testSettings = (variables: Variables = {}) => Settings.fromVariables({ ...testVariables, ...variables })

/** As `testSettings`, for layers that cannot fail: a bad value is the test's own defect. */
export const testSettingsOrDie = (variables: Variables = {}) => Layer.orDie(testSettings(variables))
