/**
 * Where a request comes from. A request through a reverse proxy on this machine comes from loopback
 * too, on behalf of anyone: one that carries a proxy's header is never taken for either.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Option from "effect/Option"
import { networkInterfaces } from "node:os"

const loopback = (address: string) => address === "::1" || address.startsWith("127.")

const proxied = (headers: Readonly<Record<string, string | undefined>>) =>
  headers["x-forwarded-for"] !== undefined || headers["forwarded"] !== undefined

const unmapped = (address: string) => (address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address)

/** Read at each call: the route that asks is the operator's, and addresses change. */
const ownAddress = (address: string) =>
  Object.values(networkInterfaces()).some((interfaces) => interfaces?.some((own) => own.address === address) ?? false)

const from = (request: HttpServerRequest.HttpServerRequest, accepted: (address: string) => boolean) =>
  !proxied(request.headers) && Option.exists(request.remoteAddress, (address) => accepted(unmapped(address)))

/** From loopback. */
export const isLoopbackRequest = (request: HttpServerRequest.HttpServerRequest): boolean => from(request, loopback)

/**
 * From this machine: loopback, or one of its own addresses, which its processes connect from when
 * `HOST` is one of them or a name for one (the operator CLI goes where the service listens).
 */
export const isFromThisMachine = (request: HttpServerRequest.HttpServerRequest): boolean =>
  from(request, (address) => loopback(address) || ownAddress(address))
