import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { addressKey, clientAddressOf } from "../../src/http/clientAddress.ts"

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
    // A proxy that wrote something else than an address: the proxy's own peer counts.
    expect(clientAddressOf({ socket: nginx, forwardedFor: "unknown", trustedProxies: 1 })).toBe(nginx)
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

describe("addressKey", () => {
  it("drops the port some proxies append, and reads IPv4 mapped into IPv6 as IPv4", () => {
    expect(addressKey("203.0.113.7:51234")).toBe("203.0.113.7")
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7")
    expect(addressKey("[::FFFF:203.0.113.7]:443")).toBe("203.0.113.7")
    expect(addressKey("[2001:db8::1]:443")).toBe("2001:db8:0:0::/64")
  })

  it("is undefined for what is not an address", () => {
    for (const entry of ["unknown", "", "_hidden", "300.1.1.1", "example.com", "1.2.3.4:http"]) expect(addressKey(entry)).toBeUndefined()
  })

  it.prop("IPv6 counts by its /64: one subscriber's block is one key, however it is written", [
    fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }),
    fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 4, maxLength: 4 })
  ], ([groups, otherHost]) => {
    const write = (g: ReadonlyArray<number>) => g.map((n) => n.toString(16)).join(":")
    const sameBlock = [...groups.slice(0, 4), ...otherHost]
    expect(addressKey(write(sameBlock))).toBe(addressKey(write(groups)))
    // Zero-padded, upper case, compressed: the same key.
    expect(addressKey(groups.map((n) => n.toString(16).padStart(4, "0").toUpperCase()).join(":"))).toBe(addressKey(write(groups)))
    expect(addressKey(`${write(groups.slice(0, 4))}::1`)).toBe(addressKey(write(groups)))
    // Another /64 is another key.
    const neighbour = [...groups.slice(0, 3), ((groups[3] ?? 0) + 1) % 0x10000, ...groups.slice(4)]
    expect(addressKey(write(neighbour))).not.toBe(addressKey(write(groups)))
  })
})
