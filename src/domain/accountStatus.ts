/** The body of `GET /api/tokens` (spec §2.3), built from the rows; dates as ISO 8601. */
import * as Option from "effect/Option"
import type { Account, ApiKey, Subscription } from "./models.ts"

export interface AccountStatus {
  readonly subscription:
    | { readonly isSubscribed: false }
    | {
      readonly isSubscribed: true
      readonly plan: { readonly name: string; readonly description: string }
      readonly status: string
      readonly statusFormatted: string
      readonly renewsAt: string | null
      readonly endsAt: string | null
    }
  readonly token: { readonly name: string | null; readonly createdAt: string; readonly expiredAt: string }
  readonly user: {
    readonly credits: number
    readonly id: string
    readonly registeredAt: string
    readonly name: string
    readonly email: "Not available"
  }
  readonly success: true
}

/** `active` -> `Active`, `past_due` -> `Past due`. */
export const formatStatus = (status: string) => {
  const words = status.replaceAll("_", " ")
  return words.charAt(0).toUpperCase() + words.slice(1)
}

const iso = (date: Date | null) => date?.toISOString() ?? null

export const accountStatus = (account: Account, key: ApiKey, subscription: Option.Option<Subscription>): AccountStatus => ({
  subscription: Option.match(subscription, {
    onNone: () => ({ isSubscribed: false }) as const,
    onSome: (s) => ({
      isSubscribed: true,
      plan: { name: s.planName, description: s.planDescription },
      status: s.status,
      statusFormatted: formatStatus(s.status),
      renewsAt: iso(s.renewsAt),
      endsAt: iso(s.endsAt)
    }) as const
  }),
  token: { name: key.name, createdAt: key.createdAt.toISOString(), expiredAt: key.expiredAt.toISOString() },
  user: {
    credits: account.credits,
    id: account.id,
    registeredAt: account.registeredAt.toISOString(),
    // §2.3: the key's name stands in for the user's; the e-mail address is never returned.
    name: key.name ?? "User",
    email: "Not available"
  },
  success: true
})
