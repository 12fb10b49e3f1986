import type { Principal } from '../../auth/principal.js'
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js'

/** Client clocks drift: occurred_at further than this from the server's clock is replaced by the receive time. */
const MAX_CLOCK_SKEW_MS = 24 * 60 * 60 * 1000

/** The identifying fields of spec 1 §6 (user id, e-mail, company id, role, company name) from the credential. */
function identityOf(principal: Principal | null) {
  if (principal?.kind === 'user') {
    return {
      user_id: principal.user_id,
      email: principal.email,
      company_id: principal.company_id,
      role: principal.role,
      company_name: principal.company_name,
      share_id: null,
    }
  }
  if (principal?.kind === 'guest') {
    return { user_id: null, email: null, company_id: null, role: 'guest', company_name: null, share_id: principal.share_id }
  }
  return { user_id: null, email: null, company_id: null, role: null, company_name: null, share_id: null }
}

/** Analytics events (spec 1 §6): stored with the caller's identity, anonymously without a valid credential. */
export class AnalyticsService {
  constructor(private readonly prisma: PrismaClient) {}

  /** Stores the events; gives how many were stored. */
  async record(
    principal: Principal | null,
    events: readonly { name: string; properties?: Record<string, unknown> | null | undefined; occurred_at?: string | null | undefined }[],
  ): Promise<number> {
    const identity = identityOf(principal)
    const now = Date.now()
    const data = events.map((event) => {
      const stamped = event.occurred_at ? Date.parse(event.occurred_at) : now
      const occurred = Math.abs(stamped - now) <= MAX_CLOCK_SKEW_MS ? stamped : now
      return {
        name: event.name,
        ...(event.properties ? { properties: event.properties as Prisma.InputJsonValue } : {}),
        occurred_at: new Date(occurred),
        ...identity,
      }
    })
    const { count } = await this.prisma.analyticsEvent.createMany({ data })
    return count
  }
}
