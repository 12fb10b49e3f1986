import {
  CREDIT_MESSAGES,
  ERROR_CODES,
  PRODUCT_GROUPS,
  PRODUCT_NAMES,
  AUTH_MESSAGES,
  type ProductGroup,
  type ProductUsage,
} from '@citrus/contracts'
import type { PrismaClient } from '../db/database.js'
import { AppError, forbidden, notFound } from '../lib/errors.js'

const DAY_MS = 24 * 60 * 60 * 1000

export interface Cycle {
  start: Date
  /** the start of the next cycle: credits renew then */
  end: Date
}

/** Cycles are consecutive windows of renewal_cycle_days starting at the company's created_at (docs/decisions/0007). */
export function currentCycle(createdAt: Date, renewalCycleDays: number, now: Date = new Date()): Cycle {
  const length = Math.max(1, renewalCycleDays) * DAY_MS
  const elapsed = Math.max(0, now.getTime() - createdAt.getTime())
  const start = createdAt.getTime() + Math.floor(elapsed / length) * length
  return { start: new Date(start), end: new Date(start + length) }
}

/** YYYY-MM-DD in UTC. */
export const isoDay = (date: Date) => date.toISOString().slice(0, 10)

export interface Charge {
  company_id: number
  product_group: ProductGroup
  cycle_start: Date
  /** null = unlimited */
  limit: number | null
  used: number
  /** null = unlimited */
  remaining: number | null
  renews_on: string
}

export const creditsExhausted = (group: ProductGroup, renewsOn: string) =>
  new AppError(402, ERROR_CODES.CREDITS_EXHAUSTED, CREDIT_MESSAGES.exhausted(group, renewsOn))

/** Product credits per company and renewal cycle, from the company's policies (limit null = unlimited). */
export class CreditService {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * Takes one credit of a product group in the company's current cycle, atomically: one statement
   * that inserts the cycle's row or increments it only while it is below the limit. A company
   * without the product gets 403, one out of credits 402 (CREDITS_EXHAUSTED).
   */
  async consume(companyId: number, group: ProductGroup, now: Date = new Date()): Promise<Charge> {
    const company = await this.prisma.company.findUnique({
      where: { id: companyId },
      select: { created_at: true, renewal_cycle_days: true, policies: { where: { product_group: group }, select: { limit: true } } },
    })
    const policy = company?.policies[0]
    if (!company || !policy) throw forbidden(AUTH_MESSAGES.productDenied(PRODUCT_NAMES[group]))
    const cycle = currentCycle(company.created_at, company.renewal_cycle_days, now)
    const limit = policy.limit
    const rows = await this.prisma.$queryRaw<{ used: number }[]>`
      INSERT INTO credit_usage (company_id, product_group, cycle_start, used, updated_at)
      SELECT ${companyId}, ${group}::"ProductGroup", ${cycle.start}::timestamptz, 1, now()
      WHERE ${limit}::int IS NULL OR ${limit}::int > 0
      ON CONFLICT (company_id, product_group, cycle_start)
      DO UPDATE SET used = credit_usage.used + 1, updated_at = now()
      WHERE ${limit}::int IS NULL OR credit_usage.used < ${limit}::int
      RETURNING used`
    const used = rows[0]?.used
    if (used === undefined) throw creditsExhausted(group, isoDay(cycle.end))
    return {
      company_id: companyId,
      product_group: group,
      cycle_start: cycle.start,
      limit,
      used,
      remaining: limit === null ? null : Math.max(0, limit - used),
      renews_on: isoDay(cycle.end),
    }
  }

  /** Gives back a credit taken by `consume` (the call failed on the server's side). */
  async refund(charge: Pick<Charge, 'company_id' | 'product_group' | 'cycle_start'>): Promise<void> {
    await this.prisma.$executeRaw`
      UPDATE credit_usage SET used = used - 1, updated_at = now()
      WHERE company_id = ${charge.company_id} AND product_group = ${charge.product_group}::"ProductGroup"
        AND cycle_start = ${charge.cycle_start}::timestamptz AND used > 0`
  }

  /** Every product group the company holds with its credits in the current cycle. */
  async usage(companyId: number, now: Date = new Date()): Promise<ProductUsage[]> {
    const company = await this.prisma.company.findUnique({
      where: { id: companyId },
      select: { created_at: true, renewal_cycle_days: true, policies: { select: { id: true, product_group: true, limit: true } } },
    })
    if (!company) throw notFound(`Company ${companyId} not found`)
    const cycle = currentCycle(company.created_at, company.renewal_cycle_days, now)
    const counters = await this.prisma.creditUsage.findMany({
      where: { company_id: companyId, cycle_start: cycle.start },
      select: { product_group: true, used: true },
    })
    const usedOf = new Map(counters.map((row) => [row.product_group, row.used]))
    const order = (group: ProductGroup) => PRODUCT_GROUPS.indexOf(group)
    return [...company.policies]
      .sort((a, b) => order(a.product_group) - order(b.product_group))
      .map((policy) => {
        const used = usedOf.get(policy.product_group) ?? 0
        return {
          id: policy.id,
          product_group: policy.product_group,
          remaining_count: policy.limit === null ? null : Math.max(0, policy.limit - used),
          is_infinite: policy.limit === null,
          limit: policy.limit,
          used_count: used,
          cycle_start: cycle.start.toISOString(),
          renews_on: isoDay(cycle.end),
        }
      })
  }
}
