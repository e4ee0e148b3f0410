/** Which addresses an image URL may reach (src/domain/publicAddress.ts): every refused range, and public ones. */
import { describe, expect, it } from "vitest"
import { isPublicAddress, mayConnect, parseAllowList } from "../../src/domain/publicAddress.ts"

const refused = [
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "this network"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback, last of 127/8"],
  ["10.0.0.1", "private 10/8"],
  ["10.255.255.255", "private 10/8"],
  ["172.16.0.1", "private 172.16/12"],
  ["172.31.255.255", "private 172.16/12, last"],
  ["192.168.1.1", "private 192.168/16"],
  ["169.254.169.254", "link-local: the metadata address"],
  ["169.254.0.1", "link-local"],
  ["100.64.0.1", "CGNAT"],
  ["100.127.255.255", "CGNAT, last"],
  ["192.0.0.8", "IETF protocol assignments"],
  ["192.0.2.10", "documentation"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking, last"],
  ["192.88.99.1", "6to4 relay"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["[::1]", "loopback, as in a URL"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local with a zone"],
  ["febf::1", "link-local, last of fe80::/10"],
  ["fc00::1", "unique-local"],
  ["fd12:3456::1", "unique-local"],
  ["ff02::1", "multicast"],
  ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
  ["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
  ["::ffff:10.0.0.1", "IPv4-mapped private"],
  ["::ffff:169.254.169.254", "IPv4-mapped metadata address"],
  ["::ffff:0.0.0.0", "IPv4-mapped unspecified"],
  ["64:ff9b::a9fe:a9fe", "NAT64 of the metadata address"],
  ["::127.0.0.1", "IPv4-compatible (deprecated)"],
  ["2001:db8::1", "documentation"],
  ["2001::1", "Teredo"],
  ["2002:7f00:1::1", "6to4"],
  ["not-an-address", "not an address"],
  ["", "empty"]
] as const

const accepted = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.15.255.255", "172.32.0.1", "100.63.255.255", "100.128.0.1", "169.253.1.1", "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::808:808"]

describe("isPublicAddress", () => {
  it.each(refused)("refuses %s (%s)", (address) => expect(isPublicAddress(address)).toBe(false))
  it.each(accepted)("accepts %s", (address) => expect(isPublicAddress(address)).toBe(true))
})

describe("IMAGE_URL_ALLOW", () => {
  const { allow, invalid } = parseAllowList(" images.internal , 127.0.0.1/32,10.1.0.0/16, fd00::/8 ")

  it("allows a named host whatever it resolves to, and addresses in the ranges", () => {
    expect(invalid).toEqual([])
    expect(mayConnect(allow, "Images.Internal", "192.168.3.3")).toBe(true)
    expect(mayConnect(allow, "other.example", "127.0.0.1")).toBe(true)
    expect(mayConnect(allow, "other.example", "10.1.200.3")).toBe(true)
    expect(mayConnect(allow, "other.example", "fd00::5")).toBe(true)
  })

  it("refuses what it does not name, the mapped form of an allowed IPv4 address included", () => {
    expect(mayConnect(allow, "other.example", "127.0.0.2")).toBe(false)
    expect(mayConnect(allow, "other.example", "10.2.0.1")).toBe(false)
    expect(mayConnect(allow, "other.example", "::ffff:10.2.0.1")).toBe(false)
    expect(mayConnect(allow, "other.example", "169.254.169.254")).toBe(false)
    expect(mayConnect(allow, "other.example", "8.8.8.8")).toBe(true)
  })

  it("reports entries that are neither hosts nor ranges", () => {
    expect(parseAllowList("10.0.0.0/33,http://x,ok.host,,").invalid).toEqual(["10.0.0.0/33", "http://x"])
  })
})
