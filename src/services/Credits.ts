/**
 * Credit balances, the ledger that explains them, and per-request reservations (spec §1, §8;
 * README, "Behaviour the spec leaves open"). A `/describe` request reserves one credit at check 2
 * and settles it when it ends: captured on success, released on any failure, in one transaction
 * with its usage row, so a crash can never charge a failure, charge twice, or lose a credit. A
 * balance never goes below zero.
 *
 * This file holds the operator's side (grants, the ledger and usage rows) and puts the service
 * together; a request's side is in creditReservation.ts (the hold and the bracket around a
 * request), creditSettlement.ts (ending holds, and sweeping those nobody will end) and
 * creditStatements.ts (their SQL).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AccountNotFound, InvalidCommand } from "../domain/errors.ts"
import { LedgerEntry, Usage } from "../domain/models.ts"
import { CreditWait, makeReservation } from "./creditReservation.ts"
import { makeSettlement } from "./creditSettlement.ts"
import { makeCreditStatements } from "./creditStatements.ts"
import type { AccountId } from "../domain/ids.ts"

export type { Outcome } from "./creditStatements.ts"

/** Balances are PostgreSQL `integer`s. */
const maxBalance = 2_147_483_647

export class Credits extends Effect.Service<Credits>()("Credits", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const statements = yield* makeCreditStatements
    const settlement = yield* makeSettlement(statements)
    const { reserve, withCredit } = makeReservation(statements, settlement, yield* CreditWait)
    const now = statements.now

    const balanceRow = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ credits: Schema.Number }),
      execute: (id) => sql`SELECT credits FROM accounts WHERE id = ${id} AND deleted_at IS NULL FOR UPDATE`
    })

    /** Adds (or with a negative amount, removes) credits, with a ledger row giving the reason. */
    const grant = (accountId: AccountId, amount: number, reason: string) =>
      Effect.gen(function* () {
        if (!Number.isSafeInteger(amount) || amount === 0) {
          return yield* new InvalidCommand({ message: "the amount must be a non-zero whole number" })
        }
        if (Math.abs(amount) > maxBalance) {
          return yield* new InvalidCommand({ message: `the amount must be at most ${maxBalance}` })
        }
        const { credits } = yield* balanceRow(accountId).pipe(
          Effect.orDie,
          Effect.flatMap(Option.match({ onNone: () => new AccountNotFound(), onSome: Effect.succeed }))
        )
        if (credits + amount > maxBalance) {
          return yield* new InvalidCommand({ message: `the balance is ${credits}, it cannot exceed ${maxBalance}` })
        }
        const [account] = yield* sql<{ credits: number }>`UPDATE accounts SET credits = credits + ${amount}
          WHERE id = ${accountId} AND credits + ${amount} >= reserved RETURNING credits`.pipe(Effect.orDie)
        if (account === undefined) {
          return yield* new InvalidCommand({
            message: credits + amount < 0
              ? `the balance is ${credits}, it cannot go below 0`
              : `the balance is ${credits}, it cannot go below what requests in flight hold`
          })
        }
        yield* sql`INSERT INTO credit_ledger ${sql.insert({
          id: crypto.randomUUID(), accountId, amount, reason, usageId: null, createdAt: yield* now
        })}`.pipe(Effect.orDie)
        return account.credits
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Credits.grant"))

    const ledger = SqlSchema.findAll({
      Request: Schema.String,
      Result: LedgerEntry,
      execute: (accountId) => sql`SELECT id, amount, reason, usage_id, created_at FROM credit_ledger
        WHERE account_id = ${accountId} ORDER BY seq`
    })

    const usage = SqlSchema.findAll({
      Request: Schema.String,
      Result: Usage,
      execute: (accountId) => sql`SELECT id, key_id, created_at, state, status, error_kind FROM usage
        WHERE account_id = ${accountId} ORDER BY seq DESC LIMIT 1000`
    })

    return {
      grant,
      reserve,
      settle: settlement.settle,
      withCredit,
      releaseAbandoned: settlement.releaseAbandoned,
      ledger: (accountId: AccountId) => ledger(accountId).pipe(Effect.orDie),
      usage: (accountId: AccountId) => usage(accountId).pipe(Effect.orDie)
    } as const
  })
}) {}
