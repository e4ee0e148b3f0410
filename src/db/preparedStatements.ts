/**
 * What the two clients' prepared statements share (`pglitePrepared.ts`, `pgPrepared.ts`): the
 * service runs a few fixed texts over and over, so each is parsed and planned once per session.
 */

/** Texts kept prepared per session; past this the oldest is closed (a text made at run time must not grow the session). */
export const maxPrepared = 200

/** PostgreSQL's "cached plan must not change result type": a table's columns changed under a `SELECT *`. */
export const planChanged = (error: unknown): boolean =>
  error instanceof Error && "code" in error && error.code === "0A000" && error.message.includes("cached plan")
