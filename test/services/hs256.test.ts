import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { jwtVerify, SignJWT, UnsecuredJWT } from "jose"
import { createHmac } from "node:crypto"
import * as Hs256 from "../../src/services/hs256.ts"

const secret = new TextEncoder().encode("a-secret-of-the-service-a-secret-of-the-service")
const otherSecret = new TextEncoder().encode("another-secret-another-secret-another-secret-xx")
const now = 1_800_000_000

/** What `jose` makes of a token, as the service called it before (`Signer`): its claims, or undefined. */
const joseVerify = async (token: string) => {
  try {
    const { payload } = await jwtVerify(token, secret, { algorithms: ["HS256"], currentDate: new Date(now * 1000), requiredClaims: ["exp"] })
    return payload
  } catch {
    return undefined
  }
}

const joseSign = (claims: Record<string, unknown>, header: Record<string, unknown> = {}, key = secret) =>
  new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT", ...header }).sign(key)

const claims = { userId: "3b7c2a52-8d0a-4c53-9a57-2f1f3f7e9d10", jti: "0b9ab4a6-3f4e-4d1c-8a1e-6c2f2a7d9e11", iat: now - 10, exp: now + 3600 }

describe("HS256 tokens", () => {
  it("a token it signs is read back, and jose reads it the same", async () => {
    const token = Hs256.sign(secret, claims)
    expect(Hs256.verify(secret, token, now)).toStrictEqual(claims)
    expect(await joseVerify(token)).toStrictEqual(claims)
  })

  it("a token jose signed (every key issued before) is read", async () => {
    const token = await joseSign(claims)
    expect(Hs256.verify(secret, token, now)).toStrictEqual(claims)
  })

  it.each([
    ["another secret", () => joseSign(claims, {}, otherSecret)],
    ["alg none", async () => new UnsecuredJWT(claims).encode()],
    ["HS512", () => new SignJWT(claims).setProtectedHeader({ alg: "HS512" }).sign(secret)],
    ["no exp", () => joseSign({ userId: claims.userId })],
    ["exp now", () => joseSign({ ...claims, exp: now })],
    ["exp as text", () => joseSign({ ...claims, exp: String(now + 60) })],
    ["nbf ahead", () => joseSign({ ...claims, nbf: now + 1 })],
    ["iat as text", () => joseSign({ ...claims, iat: "yesterday" })],
    ["a critical header", () => joseSign(claims, { crit: ["b64"], b64: true })],
    ["four parts", async () => `${await joseSign(claims)}.e30`],
    ["padding", async () => `${await joseSign(claims)}=`],
    ["an array payload", async () => {
      const signingInput = `${Buffer.from('{"alg":"HS256"}').toString("base64url")}.${Buffer.from("[1]").toString("base64url")}`
      return `${signingInput}.${createHmac("sha256", secret).update(signingInput).digest("base64url")}`
    }]
  ] as const)("refused: %s", async (_, make) => {
    expect(Hs256.verify(secret, await make(), now)).toBeUndefined()
  })

  it("nbf reached and exp a second ahead are accepted", async () => {
    const token = await joseSign({ ...claims, nbf: now, exp: now + 1 })
    expect(Hs256.verify(secret, token, now)).toStrictEqual({ ...claims, nbf: now, exp: now + 1 })
  })

  // Every character of a valid token changed, dropped or doubled: accepted exactly when jose
  // accepts it, with the same claims (the one difference, a `crit` header, is refused above).
  it("a mangled token is accepted exactly when jose accepts it", () =>
    fc.assert(
      fc.asyncProperty(fc.nat(), fc.constantFrom("change", "drop", "double"), fc.char(), async (at, how, char) => {
        const token = Hs256.sign(secret, claims)
        const i = at % token.length
        const mangled = how === "drop"
          ? token.slice(0, i) + token.slice(i + 1)
          : how === "double"
          ? token.slice(0, i + 1) + token.slice(i)
          : token.slice(0, i) + char + token.slice(i + 1)
        expect(Hs256.verify(secret, mangled, now)).toStrictEqual(await joseVerify(mangled))
      }),
      { numRuns: 500 }
    ))

  it("any claims jose signs read back as jose reads them", () =>
    fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })), async (extra) => {
        const token = await joseSign({ ...extra, exp: now + 60 })
        expect(Hs256.verify(secret, token, now)).toStrictEqual(await joseVerify(token))
      }),
      { numRuns: 200 }
    ))
})
