import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { clientAddressOf } from "../../src/http/clientAddress.ts"

const nginx = "172.18.0.5"
const client = "203.0.113.7"

/** What nginx's `$proxy_add_x_forwarded_for` sends on: the header it got, then its peer. */
const throughProxy = (sentByClient: string | undefined, peer: string) =>
  sentByClient === undefined ? peer : `${sentByClient}, ${peer}`

describe("clientAddressOf", () => {
  it("without trusted proxies the socket's peer counts, whatever X-Forwarded-For says", () => {
    expect(clientAddressOf({ socket: client, forwardedFor: "198.51.100.1", trustedProxies: 0 })).toBe(client)
    expect(clientAddressOf({ socket: undefined, forwardedFor: "198.51.100.1", trustedProxies: 0 })).toBe("unknown")
  })

  it("behind one proxy, the address the proxy appended", () => {
    expect(clientAddressOf({ socket: nginx, forwardedFor: throughProxy(undefined, client), trustedProxies: 1 })).toBe(client)
    // A request that reached the service around the proxy has no header: its own peer counts.
    expect(clientAddressOf({ socket: client, forwardedFor: undefined, trustedProxies: 1 })).toBe(client)
  })

  it.prop("entries a client writes itself never become its address, behind one proxy or two", [
    fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), fc.string({ unit: "grapheme-ascii" })), { maxLength: 8 }),
    fc.ipV4()
  ], ([forged, real]) => {
    const sentByClient = forged.length === 0 ? undefined : forged.join(",")
    const oneHop = throughProxy(sentByClient, real)
    expect(clientAddressOf({ socket: nginx, forwardedFor: oneHop, trustedProxies: 1 })).toBe(real)
    // A CDN in front of nginx: the CDN appends the client, nginx appends the CDN.
    expect(clientAddressOf({ socket: nginx, forwardedFor: throughProxy(oneHop, "192.0.2.200"), trustedProxies: 2 })).toBe(real)
  })
})
