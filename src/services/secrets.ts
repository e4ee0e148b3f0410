/** Random tokens (signing secret, operator token, CSRF tokens, invitations) and how they are stored. */
import { createHash } from "node:crypto"

/** 256 random bits, URL-safe. */
export const randomToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")

/** What the database keeps of a bearer token: a leaked row is not a usable token. */
export const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex")
