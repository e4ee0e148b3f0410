/**
 * Compact JWTs signed with HS256 (RFC 7515, 7519), the service's only kind (`Signer`): a few lines
 * of `node:crypto` instead of a JOSE library, which loaded 46 modules (3.5 MiB in a bare process) to
 * check one HMAC through WebCrypto's asynchronous verify: a key check took 400 µs with it, 210
 * without (`ApiKeys.authenticate` in a loop on PGlite in memory, Bun 1.4.5).
 * It accepts what `jose`'s `jwtVerify` accepts with `algorithms: ["HS256"]` and `exp` required
 * (test/services/hs256.test.ts compares the two on tokens of both and on mangled ones), with these
 * differences, none on a token either signs: any `crit` header is refused, and so is a signature
 * padded with `=` or holding whitespace, which jose's lenient base64 takes, and a part opening with
 * a byte-order mark, which jose's decoder drops; a part whose bytes are not UTF-8, or of 4n+1
 * characters, is read where jose refuses it, but only the secret's holder can sign such a part.
 */
import { createHmac, timingSafeEqual } from "node:crypto"

/** A token's payload: a JSON object. */
export type Claims = { readonly [claim: string]: unknown }

const header = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url")

const mac = (secret: Uint8Array, signingInput: string) => createHmac("sha256", secret).update(signingInput).digest()

export const sign = (secret: Uint8Array, claims: Claims): string => {
  const signingInput = `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`
  return `${signingInput}.${mac(secret, signingInput).toString("base64url")}`
}

/** Base64url without padding, as RFC 7515 writes every part. */
const part = /^[A-Za-z0-9_-]+$/

/** A plain JSON object, or undefined. */
const objectOf = (encoded: string): Claims | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(encoded, "base64url").toString("utf8"))
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Claims) : undefined
  } catch {
    return undefined
  }
}

const isTime = (value: unknown) => value === undefined || typeof value === "number"

/**
 * The claims of `token` if its signature is `secret`'s, its header says HS256 (and nothing
 * critical), and at `now` (seconds since the epoch) it has an `exp` still ahead and no `nbf` still
 * ahead. Undefined otherwise, whatever the reason: the caller answers every refusal alike.
 */
export const verify = (secret: Uint8Array, token: string, now: number): Claims | undefined => {
  const parts = token.split(".")
  if (parts.length !== 3 || !parts.every((p) => part.test(p))) return undefined
  const [encodedHeader = "", encodedPayload = "", encodedSignature = ""] = parts
  const protectedHeader = objectOf(encodedHeader)
  if (protectedHeader?.["alg"] !== "HS256" || "crit" in protectedHeader) return undefined
  const signature = Buffer.from(encodedSignature, "base64url")
  const expected = mac(secret, `${encodedHeader}.${encodedPayload}`)
  if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return undefined
  const claims = objectOf(encodedPayload)
  if (claims === undefined || !isTime(claims["iat"]) || !isTime(claims["nbf"]) || typeof claims["exp"] !== "number") return undefined
  if (claims["exp"] <= now || (typeof claims["nbf"] === "number" && claims["nbf"] > now)) return undefined
  return claims
}
