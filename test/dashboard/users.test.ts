import { createHash } from "node:crypto"
import { describe, expect, it, layer } from "@effect/vitest"
import { Cause, Chunk, Clock, Duration, Effect, Either, Exit, Fiber, Option, TestClock } from "effect"
import { SignJWT } from "jose"
import { Accounts } from "../../src/services/Accounts.ts"
import { ApiKeys } from "../../src/services/ApiKeys.ts"
import { DashboardConfig } from "../../src/config/DashboardConfig.ts"
import { testSettings } from "../support/config.ts"
import { Sessions } from "../../src/services/Sessions.ts"
import { Signer } from "../../src/services/Signer.ts"
import { loginDelay, loginFailures, signupAttempts } from "../../src/services/attempts.ts"
import { Users } from "../../src/services/Users.ts"
import { backends, pgliteWith } from "../support/database.ts"
import { servicesOn } from "../support/services.ts"

const now = Date.parse("2026-03-01T12:00:00.000Z")
const minute = 60_000
const password = "correct horse battery staple"

const users = Users
// Each sign-up from an address of its own unless told, so the per-address bound stays out of the way.
let addresses = 0
const freshAddress = () => `198.18.${Math.floor(++addresses / 250)}.${addresses % 250}`
const signUp = (email: string, name = "Ada", address = freshAddress()) =>
  Effect.flatMap(users, (u) => u.signUp({ name, email, password, address }))
const logIn = (email: string, pass: string, address = "192.0.2.1") =>
  Effect.flatMap(users, (u) => u.logIn({ email, password: pass, address }))
const failedTag = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error._tag)

/**
 * Runs `effect` to its end, moving the test clock to each wake-up it sleeps until (a log-in's
 * delay); `waitedMs` is how far the clock moved. The real pauses let its queries run.
 */
const settled = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(effect)
    const start = yield* Clock.currentTimeMillis
    for (;;) {
      const exit = yield* Fiber.poll(fiber)
      if (Option.isSome(exit)) return { value: yield* exit.value, waitedMs: (yield* Clock.currentTimeMillis) - start }
      // Other fibers sleep too (for minutes): only a wake-up within a log-in's longest delay is its.
      const now = yield* Clock.currentTimeMillis
      const wakeUp = Chunk.findFirst(yield* TestClock.sleeps(), (at) => at <= now + Duration.toMillis(loginFailures.maxDelay))
      if (Option.isSome(wakeUp)) yield* TestClock.setTime(wakeUp.value)
      else yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 2)))
    }
  })

for (const backend of backends) {
  layer(servicesOn(backend))(`Users and Sessions on ${backend.name}`, (it) => {
    describe("sign-up", () => {
      it.effect("makes an account with its first user; the address is stored trimmed and in lower case", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const user = yield* signUp("  Signup@Example.COM ")
          expect(user.email).toBe("signup@example.com")
          const account = yield* Effect.flatMap(Accounts, (a) => a.find(user.accountId))
          expect([account.name, account.email, account.credits]).toEqual(["Ada", "signup@example.com", 0])
          expect(yield* failedTag(signUp("SIGNUP@example.com"))).toBe("EmailTaken")
        }))

      it.effect("refuses the address of an account an operator made (one address, one account), not that of a deleted one", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const made = yield* Effect.flatMap(Accounts, (a) => a.create({ name: "Shop", email: "Operator.Made@example.com" }))
          expect(yield* Effect.flip(signUp("operator.made@example.com"))).toMatchObject({ _tag: "EmailTaken", byAccount: true })
          yield* Effect.flatMap(Accounts, (a) => a.remove(made.id))
          expect((yield* signUp("operator.made@example.com")).email).toBe("operator.made@example.com")
        }))

      it.effect("refuses each field that breaks its rule, naming the field", () =>
        Effect.gen(function* () {
          const refusal = (form: { name: string; email: string; password: string }) =>
            Effect.flatMap(users, (u) => u.signUp({ ...form, address: freshAddress() })).pipe(
              Effect.flip,
              Effect.map((e) => (e._tag === "FormInvalid" ? e.field : e._tag))
            )
          expect(yield* refusal({ name: " ", email: "a@example.com", password })).toBe("name")
          expect(yield* refusal({ name: "A", email: "no-at-sign", password })).toBe("email")
          expect(yield* refusal({ name: "A", email: "a@example.com", password: "seven77" })).toBe("password")
          expect(yield* refusal({ name: "A", email: "a@example.com", password: "x".repeat(257) })).toBe("password")
        }))

      it.effect(`after ${signupAttempts.perAddress} attempts from one address in an hour, sign-up is refused there until the oldest ages out`, () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const address = "203.0.113.50"
          // Refused forms cost no attempt: nothing was hashed.
          for (let i = 0; i < signupAttempts.perAddress + 2; i++) {
            expect(yield* failedTag(Effect.flatMap(users, (u) => u.signUp({ name: "A", email: "a@example.com", password: "short", address }))))
              .toBe("FormInvalid")
          }
          // Attempts count whether or not they succeed: the last one finds its address taken.
          for (let i = 0; i < signupAttempts.perAddress - 1; i++) {
            yield* TestClock.adjust(minute)
            yield* signUp(`crowd${i}@example.com`, "Ada", address)
          }
          expect(yield* failedTag(signUp("crowd0@example.com", "Ada", address))).toBe("EmailTaken")
          yield* TestClock.adjust(minute)
          const refused = yield* Effect.flip(signUp("one-more@example.com", "Ada", address))
          // The first attempt was at +1 min, this one at +10 min: the first leaves the hour at +61 min.
          expect(refused).toMatchObject({ _tag: "SignupThrottled", retryAfterSeconds: 51 * 60 })
          expect((yield* signUp("elsewhere@example.com", "Ada", "203.0.113.51")).email).toBe("elsewhere@example.com")
          yield* TestClock.adjust(51 * minute)
          expect((yield* signUp("one-more@example.com", "Ada", address)).email).toBe("one-more@example.com")
        }))

      it.effect(`a burst of 30 at once from one address gets no more than ${signupAttempts.perAddress} accounts in all`, () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const address = "203.0.113.90"
          const burst = yield* Effect.all(
            Array.from({ length: 30 }, (_, i) => Effect.either(signUp(`burst${i}@example.com`, "Ada", address))),
            { concurrency: "unbounded" }
          )
          const made = burst.filter(Either.isRight).length
          expect(made).toBeLessThanOrEqual(signupAttempts.perAddress)
          expect(burst.flatMap((e) => (Either.isLeft(e) ? [e.left._tag] : []))).toEqual(Array(30 - made).fill("SignupThrottled"))
          // Refused attempts are not counted: the rest of the allowance is still there, and no more.
          for (let i = made; i < signupAttempts.perAddress; i++) yield* signUp(`after${i}@example.com`, "Ada", address)
          expect(yield* failedTag(signUp("over@example.com", "Ada", address))).toBe("SignupThrottled")
        }))
    })

    describe("log-in", () => {
      it.effect("the right password logs in; a wrong one and an unknown address fail alike", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const user = yield* signUp("login@example.com")
          expect((yield* logIn("LOGIN@example.com", password)).id).toBe(user.id)
          expect(yield* failedTag(logIn("login@example.com", "wrong password"))).toBe("LoginFailed")
          expect(yield* failedTag(logIn("nobody@example.com", password))).toBe("LoginFailed")
        }))

      it.effect("a deleted account's user: the right password is AccountClosed, a wrong one LoginFailed; a reset link is never made for it", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const user = yield* signUp("gone@example.com")
          yield* Effect.flatMap(Accounts, (a) => a.remove(user.accountId))
          expect(yield* failedTag(logIn("gone@example.com", password))).toBe("AccountClosed")
          expect(yield* failedTag(logIn("gone@example.com", "wrong password"))).toBe("LoginFailed")
          const reset = yield* Effect.flatMap(users, (u) => u.requestPasswordReset("gone@example.com", "192.0.2.77"))
          expect(Option.isNone(reset)).toBe(true)
        }))

      it.effect(`after ${loginFailures.perAccountAndAddress} failures for an account from one address, that address is refused for it, right password or not, until they age out; the owner's own address is not`, () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          yield* signUp("bounded@example.com")
          for (let i = 0; i < loginFailures.perAccountAndAddress; i++) {
            yield* TestClock.adjust(minute)
            expect(yield* failedTag(logIn("bounded@example.com", "wrong", "198.51.100.7"))).toBe("LoginFailed")
          }
          const refused = yield* Effect.flip(logIn("bounded@example.com", password, "198.51.100.7"))
          expect(refused).toMatchObject({ _tag: "LoginThrottled", retryAfterSeconds: 11 * 60 })
          // The owner, from an address with no failures, gets in: slowed down, never refused.
          expect((yield* settled(logIn("bounded@example.com", password, "203.0.113.9"))).value.email).toBe("bounded@example.com")
          // The oldest failure ages out after 15 minutes: one more try from the guessing address.
          yield* TestClock.adjust(11 * minute)
          expect((yield* settled(logIn("bounded@example.com", password, "198.51.100.7"))).value.email).toBe("bounded@example.com")
          // That success cleared that address's count for the account: a full allowance again.
          for (let i = 0; i < loginFailures.perAccountAndAddress; i++) {
            expect(yield* failedTag(settled(logIn("bounded@example.com", "wrong", "198.51.100.7")))).toBe("LoginFailed")
          }
          expect(yield* failedTag(logIn("bounded@example.com", "wrong", "198.51.100.7"))).toBe("LoginThrottled")
        }))

      it.effect("failures from many addresses slow the account down, by a capped delay; they never refuse it", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          yield* signUp("spread@example.com")
          for (let i = 0; i < 12; i++) {
            expect(yield* failedTag(settled(logIn("spread@example.com", "wrong", `198.51.100.${i}`)))).toBe("LoginFailed")
          }
          const owner = yield* settled(logIn("spread@example.com", password, "203.0.113.10"))
          expect(owner.value.email).toBe("spread@example.com")
          expect(owner.waitedMs).toBeGreaterThanOrEqual(Duration.toMillis(loginFailures.maxDelay))
        }))

      it.effect("delayed attempts on one account from many addresses at once take turns: their delays add up", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          yield* signUp("turns@example.com")
          for (let i = 0; i < 8; i++) yield* Effect.flip(settled(logIn("turns@example.com", "wrong", `198.51.101.${i}`)))
          // Addresses with no failures of their own: never refused, each waits its turn (4 s apiece now).
          const started = yield* Clock.currentTimeMillis
          const fibers = yield* Effect.forEach(
            Array.from({ length: 4 }, (_, i) => `203.0.114.${i}`),
            (address) => Effect.fork(failedTag(logIn("turns@example.com", "wrong", address)))
          )
          // The clock stands still: one sleeps its delay, the others wait for their turn, not beside it.
          const delays = Effect.map(TestClock.sleeps(), (sleeps) =>
            Chunk.size(Chunk.filter(sleeps, (at) => at <= started + Duration.toMillis(loginFailures.maxDelay))))
          for (let i = 0; i < 1000 && (yield* delays) === 0; i++) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 500)))
          expect(yield* delays).toBe(1)
          const { value: tags, waitedMs } = yield* settled(Effect.forEach(fibers, Fiber.join))
          expect(tags).toEqual(Array.from({ length: 4 }, () => "LoginFailed"))
          expect(waitedMs).toBeGreaterThanOrEqual(4 * Duration.toMillis(loginFailures.maxDelay))
          // The owner, from an address of their own, still gets in after the queue.
          expect((yield* settled(logIn("turns@example.com", password, "203.0.114.99"))).value.email).toBe("turns@example.com")
        }))

      it.effect("the owner's own browser (one that logged in before) never waits in that turn, however full others keep it", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          yield* signUp("known@example.com")
          for (let i = 0; i < 8; i++) yield* Effect.flip(settled(logIn("known@example.com", "wrong", `198.51.102.${i}`)))
          const fibers = yield* Effect.forEach(
            Array.from({ length: 4 }, (_, i) => `203.0.115.${i}`),
            (address) => Effect.fork(failedTag(logIn("known@example.com", "wrong", address)))
          )
          // The clock stands still, so the turn's delays cannot pass: the owner's browser is answered anyway.
          const owner = yield* Effect.flatMap(users, (u) =>
            u.logIn({ email: "known@example.com", password, address: "203.0.115.99", knownBrowser: true }))
          expect(owner.email).toBe("known@example.com")
          expect((yield* Effect.forEach(fibers, Fiber.poll)).every(Option.isNone)).toBe(true)
          // A known browser's wrong password still counts, and still meets the per-address bound.
          for (let i = 0; i < loginFailures.perAccountAndAddress; i++) {
            expect(yield* failedTag(Effect.flatMap(users, (u) =>
              u.logIn({ email: "known@example.com", password: "wrong", address: "203.0.115.98", knownBrowser: true })))).toBe("LoginFailed")
          }
          expect(yield* failedTag(Effect.flatMap(users, (u) =>
            u.logIn({ email: "known@example.com", password, address: "203.0.115.98", knownBrowser: true })))).toBe("LoginThrottled")
          yield* settled(Effect.forEach(fibers, Fiber.join))
        }))

      it.effect("a known browser's mark is the service's, for one account, and never a session or a key", () =>
        Effect.gen(function* () {
          const sessions = yield* Sessions
          const { token } = yield* sessions.knownBrowser("Mark@Example.com")
          expect(yield* sessions.isKnownBrowser(token, " mark@example.com")).toBe(true)
          expect(yield* sessions.isKnownBrowser(token, "other@example.com")).toBe(false)
          expect(yield* sessions.isKnownBrowser(`${token}x`, "mark@example.com")).toBe(false)
          expect(yield* sessions.isKnownBrowser(undefined, "mark@example.com")).toBe(false)
          // A mark an earlier version made (a plain SHA-256 of the address) still counts until it expires.
          const signer = yield* Effect.provide(Signer, Signer.Default)
          const at = new Date(yield* Clock.currentTimeMillis)
          const legacy = yield* signer.sign(
            { browserOf: createHash("sha256").update("known-browser:mark@example.com").digest("hex") },
            { issuedAt: at, expiresAt: new Date(at.getTime() + 86_400_000) }
          )
          expect(yield* sessions.isKnownBrowser(legacy, "mark@example.com")).toBe(true)
          expect(yield* sessions.isKnownBrowser(legacy, "other@example.com")).toBe(false)
          expect(yield* failedTag(sessions.resume(token))).toBe("SessionMissing")
          const user = yield* signUp("marked@example.com")
          const session = yield* sessions.start(user, undefined)
          expect(yield* sessions.isKnownBrowser(session.token, "marked@example.com")).toBe(false)
          // Past its 180 days, forgotten.
          const fresh = yield* sessions.knownBrowser("marked@example.com")
          yield* TestClock.adjust(Duration.days(181))
          expect(yield* sessions.isKnownBrowser(fresh.token, "marked@example.com")).toBe(false)
        }))

      it.effect(`past ${loginFailures.delayedPerAccount} delayed attempts on one account, more from addresses with failures are refused at once`, () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          yield* signUp("queue@example.com")
          const guessers = Array.from({ length: 6 }, (_, i) => `198.51.102.${i}`)
          for (const address of guessers) yield* Effect.flip(settled(logIn("queue@example.com", "wrong", address)))
          const fibers = yield* Effect.forEach(guessers, (address) => Effect.fork(failedTag(logIn("queue@example.com", "wrong", address))))
          // The clock stands still: the first sleeps its delay, the next wait their turn, the rest are answered.
          let answered: Array<string> = []
          for (let i = 0; i < 1000 && answered.length < guessers.length - loginFailures.delayedPerAccount; i++) {
            yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
            answered = []
            for (const fiber of fibers) {
              const exit = yield* Fiber.poll(fiber)
              if (Option.isSome(exit) && Exit.isSuccess(exit.value)) answered.push(exit.value.value)
            }
          }
          expect(answered).toEqual(Array.from({ length: guessers.length - loginFailures.delayedPerAccount }, () => "LoginThrottled"))
          const { value: tags } = yield* settled(Effect.forEach(fibers, Fiber.join))
          expect(tags.filter((tag) => tag === "LoginFailed").length).toBe(loginFailures.delayedPerAccount)
        }))

      it("the delay doubles with each failure past the allowance, up to its cap", () => {
        const delays = [0, 5, 6, 7, 8, 9, 10, 1000].map((failures) => Duration.toMillis(loginDelay(failures)))
        expect(delays).toEqual([0, 0, 1000, 2000, 4000, 4000, 4000, 4000])
      })

      it.effect(`after ${loginFailures.perAddress} failures from one address, it is refused for every account; other addresses are not`, () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          yield* signUp("target@example.com")
          for (let i = 0; i < loginFailures.perAddress; i++) {
            yield* Effect.flip(logIn(`guess${i}@example.com`, "wrong", "192.0.2.66"))
          }
          expect(yield* failedTag(logIn("target@example.com", password, "192.0.2.66"))).toBe("LoginThrottled")
          expect((yield* logIn("target@example.com", password, "192.0.2.67")).email).toBe("target@example.com")
        }))

      it.effect(`a burst of 40 guesses at once from one address gets no more than ${loginFailures.perAccountAndAddress} passwords checked for the account`, () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          yield* signUp("burst-target@example.com")
          const { value: burst } = yield* settled(Effect.all(
            Array.from({ length: 40 }, () => failedTag(logIn("burst-target@example.com", "wrong", "198.51.100.100"))),
            { concurrency: "unbounded" }
          ))
          const checked = burst.filter((tag) => tag === "LoginFailed").length
          expect(checked).toBeLessThanOrEqual(loginFailures.perAccountAndAddress)
          expect(burst.filter((tag) => tag === "LoginThrottled").length).toBe(40 - checked)
          // What the burst left is exactly the failures it made: the rest of the allowance, no more.
          for (let i = checked; i < loginFailures.perAccountAndAddress; i++) {
            expect(yield* failedTag(settled(logIn("burst-target@example.com", "wrong", "198.51.100.100")))).toBe("LoginFailed")
          }
          expect(yield* failedTag(logIn("burst-target@example.com", password, "198.51.100.100"))).toBe("LoginThrottled")
        }))
    })

    describe("invitations", () => {
      it.effect("set a password once, within a week", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const account = yield* Effect.flatMap(Accounts, (a) => a.create({ name: "Invited" }))
          const { token } = yield* Effect.flatMap(users, (u) => u.invite(account.id, "Guest@example.com"))
          expect((yield* Effect.flatMap(users, (u) => u.pendingInvitation(token))).email).toBe("guest@example.com")
          expect(yield* failedTag(logIn("guest@example.com", password))).toBe("LoginFailed")
          const user = yield* Effect.flatMap(users, (u) => u.acceptInvitation(token, password))
          expect(user.accountId).toBe(account.id)
          expect((yield* logIn("guest@example.com", password)).id).toBe(user.id)
          expect(yield* failedTag(Effect.flatMap(users, (u) => u.acceptInvitation(token, "another password")))).toBe("InvitationInvalid")

          const late = yield* Effect.flatMap(Accounts, (a) => a.create({ name: "Late" }))
          const expiring = yield* Effect.flatMap(users, (u) => u.invite(late.id, "late@example.com"))
          yield* TestClock.adjust(7 * 24 * 60 * minute)
          expect(yield* failedTag(Effect.flatMap(users, (u) => u.acceptInvitation(expiring.token, password)))).toBe("InvitationInvalid")
        }))
    })

    describe("sessions", () => {
      const sessions = Sessions
      const start = (previous?: string) =>
        Effect.gen(function* () {
          const user = yield* signUp(`session-${crypto.randomUUID()}@example.com`)
          return yield* Effect.flatMap(sessions, (s) => s.start(user, previous))
        })
      const resumeTag = (token: string | undefined) => failedTag(Effect.flatMap(sessions, (s) => s.resume(token)))

      it.effect("a session lasts its lifetime (7 days by default), then its cookie opens nothing", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const { session, token } = yield* start()
          expect(session.expiresAt.getTime()).toBe(now + 7 * 24 * 60 * minute)
          expect((yield* Effect.flatMap(sessions, (s) => s.resume(token))).id).toBe(session.id)
          yield* TestClock.adjust(7 * 24 * 60 * minute)
          expect(yield* resumeTag(token)).toBe("SessionMissing")
        }))

      it.effect("ending a session, or starting one over it, kills its cookie at once", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const first = yield* start()
          const second = yield* start(first.token)
          expect(second.session.id).not.toBe(first.session.id)
          expect(second.session.csrfToken).not.toBe(first.session.csrfToken)
          expect(yield* resumeTag(first.token)).toBe("SessionMissing")
          yield* Effect.flatMap(sessions, (s) => s.end(second.token))
          expect(yield* resumeTag(second.token)).toBe("SessionMissing")
        }))

      it.effect("no cookie, a forged one, an API key, or one of a deleted account is no session", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(now)
          const { session, token } = yield* start()
          const [header, payload] = token.split(".")
          const forged = yield* Effect.promise(() =>
            new SignJWT({ sid: session.id }).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode("not-the-secret-not-the-secret!!!")))
          const key = yield* Effect.flatMap(ApiKeys, (k) => k.create(session.accountId, { expiredAt: new Date(now + 864e5) }))
          for (const cookie of [undefined, "", "garbage", `${header}.${payload}.`, forged, key.token]) {
            expect(yield* resumeTag(cookie)).toBe("SessionMissing")
          }
          yield* Effect.flatMap(Accounts, (a) => a.remove(session.accountId))
          expect(yield* resumeTag(token)).toBe("SessionMissing")
        }))
    })
  })
}

layer(servicesOn(pgliteWith({ SIGNUP: "closed", SESSION_LIFETIME: "2 hours" })))(
  "SIGNUP=closed, SESSION_LIFETIME=2 hours",
  (it) => {
    it.effect("sign-up is refused; invitations still let people in, for sessions of two hours", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        expect(yield* failedTag(signUp("closed@example.com"))).toBe("SignupClosed")
        const account = yield* Effect.flatMap(Accounts, (a) => a.create({ name: "Invited" }))
        const { token } = yield* Effect.flatMap(users, (u) => u.invite(account.id, "closed@example.com"))
        const user = yield* Effect.flatMap(users, (u) => u.acceptInvitation(token, password))
        const { session } = yield* Effect.flatMap(Sessions, (s) => s.start(user, undefined))
        expect(session.expiresAt.getTime() - now).toBe(2 * 60 * minute)
      }))
  }
)

it.effect("SIGNUP must be open or closed: anything else stops the start", () =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(Effect.provide(DashboardConfig, testSettings({ SIGNUP: "maybe" })))
    expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain("SIGNUP")
  }))
