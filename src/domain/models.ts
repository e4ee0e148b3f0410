/** Rows of the database as the services return them (spec §2.3 names the fields). */
import * as Schema from "effect/Schema"
import { AccountId, KeyId } from "./ids.ts"

export class Account extends Schema.Class<Account>("Account")({
  id: AccountId,
  name: Schema.String,
  email: Schema.NullOr(Schema.String),
  registeredAt: Schema.DateFromSelf,
  /** The ledger's sum. */
  credits: Schema.Number
}) {}

export class ApiKey extends Schema.Class<ApiKey>("ApiKey")({
  id: KeyId,
  accountId: AccountId,
  name: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  expiredAt: Schema.DateFromSelf,
  deletedAt: Schema.NullOr(Schema.DateFromSelf),
  lastUsedAt: Schema.NullOr(Schema.DateFromSelf),
  /** The key's last four characters, to tell keys apart; null for keys made before they were kept. */
  lastFour: Schema.NullOr(Schema.String)
}) {}

export class Subscription extends Schema.Class<Subscription>("Subscription")({
  planName: Schema.String,
  /** An HTML string (§2.3). */
  planDescription: Schema.String,
  status: Schema.String,
  renewsAt: Schema.NullOr(Schema.DateFromSelf),
  endsAt: Schema.NullOr(Schema.DateFromSelf)
}) {}

export class LedgerEntry extends Schema.Class<LedgerEntry>("LedgerEntry")({
  id: Schema.UUID,
  amount: Schema.Number,
  reason: Schema.String,
  usageId: Schema.NullOr(Schema.UUID),
  createdAt: Schema.DateFromSelf
}) {}

/**
 * One `/describe` request of a known key, or one made from the dashboard's Try it page (no key):
 * reserved, then charged or released; or refused.
 */
export class Usage extends Schema.Class<Usage>("Usage")({
  id: Schema.UUID,
  keyId: Schema.NullOr(KeyId),
  createdAt: Schema.DateFromSelf,
  state: Schema.Literal("reserved", "charged", "released", "refused"),
  status: Schema.NullOr(Schema.Number),
  errorKind: Schema.NullOr(Schema.String)
}) {}

/** A person who logs in to an account's dashboard (README, Dashboard); the address is stored normalised. */
export class DashboardUser extends Schema.Class<DashboardUser>("DashboardUser")({
  id: Schema.UUID,
  accountId: AccountId,
  email: Schema.String
}) {}

/** A logged-in dashboard session (README, Dashboard); `csrfToken` is what its forms must carry. */
export class Session extends Schema.Class<Session>("Session")({
  id: Schema.UUID,
  userId: Schema.UUID,
  accountId: AccountId,
  email: Schema.String,
  csrfToken: Schema.String,
  expiresAt: Schema.DateFromSelf
}) {}
