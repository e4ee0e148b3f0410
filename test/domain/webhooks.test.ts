import { Either } from "effect"
import { Webhook } from "standardwebhooks"
import { describe, expect, it } from "vitest"
import { checkWebhookUrl, formatSecret, maxWebhookUrlLength, retryDelays, secretKey, signature, signedHeaders } from "../../src/domain/webhooks.ts"
import { Duration } from "effect"

/** The Standard Webhooks specification's test vector (its reference libraries' tests use it). */
const vector = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: "{\"test\": 2432232314}",
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
}

describe("Standard Webhooks signatures", () => {
  it("reproduce the specification's test vector", () => {
    expect(signature([vector.secret], vector)).toBe(vector.signature)
  })

  it("during a rotation, one signature per secret, space-separated, each verifiable alone", () => {
    const other = formatSecret(new Uint8Array(32).fill(7))
    expect(signature([vector.secret, other], vector)).toBe(`${vector.signature} ${signature([other], vector)}`)
  })

  it("a new secret's key reads back, and the reference library verifies what it signs", () => {
    const key = crypto.getRandomValues(new Uint8Array(32))
    const secret = formatSecret(key)
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(secretKey(secret)).toEqual(key)
    const content = { id: "msg_1", timestamp: Math.floor(Date.now() / 1000), body: "{\"type\":\"batch.completed\"}" }
    expect(new Webhook(secret).verify(content.body, signedHeaders([secret], content))).toEqual({ type: "batch.completed" })
    expect(() => new Webhook(formatSecret(new Uint8Array(32))).verify(content.body, signedHeaders([secret], content))).toThrow()
  })

  it("the retry schedule is the specification's: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h", () => {
    expect(retryDelays.map(Duration.toSeconds)).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000])
  })
})

describe("checkWebhookUrl", () => {
  const reason = (url: string) => Either.match(checkWebhookUrl(url), { onLeft: (e) => e.message, onRight: () => "accepted" })

  it("accepts http and https URLs, normalised", () => {
    expect(checkWebhookUrl(" https://Hooks.Example.com/in?x=1 ")).toEqual(Either.right("https://hooks.example.com/in?x=1"))
    expect(reason("http://10.0.0.1:8080/")).toBe("accepted")
  })

  it("refuses anything else with a clear message", () => {
    expect(reason("ftp://example.com/")).toBe("webhookUrl must be an http or https URL")
    expect(reason("not a url")).toBe("webhookUrl is not a URL")
    expect(reason("https://user:pw@example.com/")).toBe("webhookUrl must not contain a user name or password")
    expect(reason(`https://example.com/${"a".repeat(maxWebhookUrlLength)}`)).toBe(`webhookUrl is longer than ${maxWebhookUrlLength} characters`)
  })
})
