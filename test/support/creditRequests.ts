/**
 * An account holding `credits` with a key, and the requests `Credits.withCredit` takes for it: each
 * settled by the status it is given (200 a charge, anything else a release).
 */
import { Effect } from "effect"
import { AccountId, KeyId } from "../../src/domain/ids.ts"
import { Accounts } from "../../src/services/Accounts.ts"
import { ApiKeys } from "../../src/services/ApiKeys.ts"
import { Credits } from "../../src/services/Credits.ts"

export const fundedRequests = (credits: number) =>
  Effect.gen(function* () {
    const account = yield* Accounts.pipe(Effect.flatMap((accounts) => accounts.create({ name: "Shop" })))
    yield* Credits.pipe(Effect.flatMap((c) => c.grant(account.id, credits, "purchase")))
    const { key } = yield* ApiKeys.pipe(Effect.flatMap((keys) => keys.create(account.id, { expiredAt: new Date(1e13) })))
    return (status: number) => ({
      accountId: AccountId.make(account.id),
      keyId: KeyId.make(key.id),
      outcome: () => ({ status, errorKind: status === 200 ? null : "InvalidImageFile" })
    })
  })
