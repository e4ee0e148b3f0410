/**
 * A describe under an `Idempotency-Key` (README, "Retries without paying twice"): the first request
 * with a key runs as any other (describeImage.ts) and its 200 is stored; a retry of the same
 * request gets that 200 again, uncharged; failures are not stored.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { describeResultJson } from "../domain/describe.ts"
import type { DescribeForm } from "../domain/describeForm.ts"
import type { FormError } from "../domain/errors.ts"
import { IdempotencyKeyInvalid } from "../domain/errors.ts"
import type { AccountId, KeyId } from "../domain/ids.ts"
import { isValidKey, requestDigest, type StoredAnswer } from "../domain/idempotency.ts"
import { type Described, describeImage } from "./describeImage.ts"
import { Idempotency } from "./Idempotency.ts"

/**
 * §2.1: the values with the keys in the requested order; the language they are written in and the
 * describer that wrote them, so a client can tell placeholder text from a model's (README).
 */
export const describedAnswer = (described: Described): StoredAnswer => ({
  body: describeResultJson(described.entries),
  headers: { "content-language": described.language, "x-describer": described.describer }
})

/**
 * The order of §4.1 holds, with one exception the README states: "a replay needs no free credit".
 * So a key with a stored 200 reads the form before check 2; when it is the same request, the
 * stored 200 answers and no credit is held. Otherwise the request runs as any other on the form
 * already read (or its failure): check 2 first (a 401 on an empty balance), then the form's
 * answer, then the key's (422). A key without a stored 200 is checked after the form is read
 * (check 4): an invalid key is a 400, a claim held by another request a 409 or 422, all uncharged.
 */
export const describeOnce = <R>(caller: {
  readonly accountId: AccountId
  readonly keyId: KeyId | null
  readonly form: Effect.Effect<DescribeForm, FormError, R>
  readonly idempotencyKey: string
}) =>
  Effect.gen(function* () {
    const idempotency = yield* Idempotency
    const { accountId, idempotencyKey: key } = caller
    const valid = isValidKey(key)
    const claimed = yield* Ref.make(Option.none<string>())

    const charged = (form: Effect.Effect<DescribeForm, FormError, R>) =>
      describeImage({
        ...caller,
        form: Effect.tap(form, (read) =>
          valid
            ? Effect.flatMap(idempotency.claim(accountId, key, requestDigest(read)), (id) => Ref.set(claimed, Option.some(id)))
            : new IdempotencyKeyInvalid()),
        onDescribed: (described) =>
          Effect.flatMap(Ref.get(claimed), Option.match({
            onNone: () => Effect.void,
            onSome: (id) => idempotency.complete(id, describedAnswer(described))
          }))
      }).pipe(
        Effect.map((described) => ({ answer: describedAnswer(described), replayed: false })),
        Effect.onExit((exit) =>
          Exit.isSuccess(exit) ? Effect.void : Effect.flatMap(Ref.get(claimed), Option.match({
            onNone: () => Effect.void,
            onSome: idempotency.release
          })))
      )

    const stored = valid ? yield* idempotency.stored(accountId, key) : Option.none()
    if (Option.isNone(stored)) return yield* charged(caller.form)
    return yield* Effect.scoped(Effect.gen(function* () {
      const read = yield* Effect.exit(caller.form)
      if (Exit.isSuccess(read) && requestDigest(read.value) === stored.value.digest && (yield* idempotency.replay(accountId, key))) {
        return { answer: stored.value.answer, replayed: true }
      }
      return yield* charged(read)
    }))
  })
