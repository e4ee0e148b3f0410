import * as ConfigError from "effect/ConfigError"

/** What a thrown value says: an `Error`'s message, or the value as text (for logs and error messages). */
export const messageOf = (thrown: unknown): string => (thrown instanceof Error ? thrown.message : String(thrown))

/**
 * An error as an operator reads it: its message, and the reason of the error under it when it has
 * one (a database driver's `connect ECONNREFUSED` or `database "x" does not exist`), no stack.
 */
export const explained = (error: unknown): string => {
  if (ConfigError.isConfigError(error)) return settingRefused(error)
  const message = typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)
  const cause = typeof error === "object" && error !== null && "cause" in error && error.cause instanceof Error ? error.cause.message : ""
  return cause === "" || message.includes(cause) ? message : `${message}: ${cause}`
}

/**
 * A refused setting names its variable (README, Configuration): Config's own messages ("Expected
 * an integer value but received "abc"") leave it to the error's path, which holds it.
 */
const settingRefused = (error: ConfigError.ConfigError): string => {
  if (error._op !== "InvalidData") return error.message
  const variable = error.path.join("_")
  return variable === "" || error.message.includes(variable) ? error.message : `${variable}: ${error.message}`
}
