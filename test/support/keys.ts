/** Tokens made outside the service with its signing secret: what a leaked `API_KEY_SECRET` allows. */
import { Effect } from "effect"
import { SignJWT } from "jose"

/** The `API_KEY_SECRET` of the test settings (test/support/config.ts). */
export const testSecretText = "test-secret-test-secret-test-secret!"
export const testSecret = new TextEncoder().encode(testSecretText)

export interface ForgedClaims {
  readonly userId: string
  readonly jti: string
  /** Left out of the token when absent. */
  readonly expiresAt?: Date
}

/** An HS256 token signed with `testSecret`, like the service's own keys but with the claims given. */
export const forgeKey = (claims: ForgedClaims) =>
  Effect.promise(() => {
    const token = new SignJWT({ userId: claims.userId }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setJti(claims.jti).setIssuedAt()
    return (claims.expiresAt === undefined ? token : token.setExpirationTime(Math.floor(claims.expiresAt.getTime() / 1000))).sign(testSecret)
  })
