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

/**
 * §2.3's "active subscription": one whose status is not `expired` and whose end date, when the
 * payment provider gave one, is still to come (a `cancelled` subscription runs until its end).
 */
export const isActive = (subscription: Subscription, now: Date): boolean =>
  subscription.status !== "expired" && (subscription.endsAt === null || subscription.endsAt > now)

export const accountStatus = (account: Account, key: ApiKey, subscription: Option.Option<Subscription>, now: Date): AccountStatus => ({
  subscription: Option.match(Option.filter(subscription, (s) => isActive(s, now)), {
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
