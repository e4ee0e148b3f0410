/**
 * Whether a request comes from this machine: from loopback, or from the address the server listens
 * on (`HOST` set to one of the machine's addresses, which its own processes then connect from). A
 * request through a reverse proxy on this machine comes from loopback too, on behalf of anyone: one
 * that carries a proxy's header is never taken for local.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Option from "effect/Option"

const loopback = (address: string) => address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.")

const proxied = (headers: Readonly<Record<string, string | undefined>>) =>
  headers["x-forwarded-for"] !== undefined || headers["forwarded"] !== undefined

const unmapped = (address: string) => (address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address)

export const isLocalRequest = (request: HttpServerRequest.HttpServerRequest, listenHost: string): boolean =>
  !proxied(request.headers) &&
  Option.exists(request.remoteAddress, (address) => loopback(address) || unmapped(address) === unmapped(listenHost))
