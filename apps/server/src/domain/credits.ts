import {
  CREDIT_MESSAGES,
  ERROR_CODES,
  PRODUCT_GROUPS,
  PRODUCT_NAMES,
  AUTH_MESSAGES,
  type ProductGroup,
  type ProductUsage,
} from '@citrus/contracts'
import type pg from 'pg'
import type { PrismaClient } from '../db/database.js'
import type { Row } from '../db/kysely.js'
import { batchedWrites } from '../lib/coalesce.js'
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

/** A company's policy for one product group, with what the credit cycle needs. */
export interface ProductPolicy {
  company_id: number
  product_group: ProductGroup
  /** null = unlimited */
  limit: number | null
  company_created_at: Date
  renewal_cycle_days: number
}

const POLICY_SQL = `
SELECT c.created_at, c.renewal_cycle_days, p."limit"
FROM company_policies p JOIN companies c ON c.id = p.company_id
WHERE p.company_id = $1 AND p.product_group = $2::"ProductGroup"`

/**
 * The company's policy for a product group, or null when it does not hold the product. One indexed query on the
 * pool (not Prisma): it runs on every metered request, in the access guard, and the meter reuses its answer.
 */
export async function productPolicyOf(pool: pg.Pool, companyId: number, group: ProductGroup): Promise<ProductPolicy | null> {
  const { rows } = await pool.query<Pick<Row<'companies'>, 'created_at' | 'renewal_cycle_days'> & Pick<Row<'company_policies'>, 'limit'>>({
    name: 'product-policy',
    text: POLICY_SQL,
    values: [companyId, group],
  })
  const row = rows[0]
  if (!row) return null
  return {
    company_id: companyId,
    product_group: group,
    limit: row.limit,
    company_created_at: row.created_at,
    renewal_cycle_days: row.renewal_cycle_days,
  }
}

/**
 * One statement: insert the cycle's row or increment it, by `$5` credits at once (the calls of one company that
 * arrived together, docs/decisions/0083), only while all of them fit under the limit; `used` after it is returned.
 * The commit is asynchronous (set_config(..., true) applies to this statement's transaction only): a crash may lose
 * the last few hundred milliseconds of increments (under-counting, never over-charging), and the row lock that
 * serialises concurrent requests of one company is released without waiting for the WAL flush
 * (docs/decisions/0047).
 */
const CONSUME_SQL = `
WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true) AS setting)
INSERT INTO credit_usage (company_id, product_group, cycle_start, used, updated_at)
SELECT $1, $2::"ProductGroup", $3::timestamptz, $5::int, now() FROM async_commit
WHERE $4::int IS NULL OR $4::int >= $5::int
ON CONFLICT (company_id, product_group, cycle_start)
DO UPDATE SET used = credit_usage.used + $5::int, updated_at = now()
WHERE $4::int IS NULL OR credit_usage.used + $5::int <= $4::int
RETURNING used`

/** What the calls coalesced into one credit statement share (CreditService's key). */
interface CreditLane {
  companyId: number
  group: ProductGroup
  cycleStart: Date
  /** null = unlimited */
  limit: number | null
}

/** Product credits per company and renewal cycle, from the company's policies (limit null = unlimited). */
export class CreditService {
  /**
   * The calls of one company, product, cycle and limit that arrive while its statement is in flight share the next
   * one (lib/coalesce.ts batchedWrites): each still gets a credit of its own (its own `used`) or 402.
   */
  private readonly take = batchedWrites<CreditLane, number | undefined>((lane, count) => this.takeCredits(lane, count))

  constructor(
    private readonly prisma: PrismaClient,
    private readonly pool: pg.Pool,
  ) {}

  /** `count` credits in one statement: `used` after it, or undefined when they do not all fit under the limit. */
  private async increment(lane: CreditLane, count: number): Promise<number | undefined> {
    const { rows } = await this.pool.query<Pick<Row<'credit_usage'>, 'used'>>({
      name: 'credit-consume',
      text: CONSUME_SQL,
      values: [lane.companyId, lane.group, lane.cycleStart, lane.limit, count],
    })
    return rows[0]?.used
  }

  /**
   * Credits for `count` calls, in their order: each call's `used`, or undefined (402) for a call that found them spent.
   * All at once when they fit; else one at a time until one is refused: the calls after it are refused too, as of
   * that moment (the credits were spent then, after all of them had arrived). Never more than the limit: every
   * statement adds only what fits.
   */
  private async takeCredits(lane: CreditLane, count: number): Promise<(number | undefined)[]> {
    const used = await this.increment(lane, count)
    if (used !== undefined) return Array.from({ length: count }, (_, k) => used - count + 1 + k)
    if (count === 1) return [undefined]
    const results: (number | undefined)[] = []
    let refused = false
    for (let k = 0; k < count; k++) {
      const one: number | undefined = refused ? undefined : await this.increment(lane, 1)
      refused = one === undefined
      results.push(one)
    }
    return results
  }

  /**
   * Takes one credit of a product group in the company's current cycle, atomically: one statement
   * that inserts the cycle's row or increments it only while it is below the limit (shared by the calls of the
   * company that arrive together, each counted on its own). A company without the product gets 403, one out of
   * credits 402 (CREDITS_EXHAUSTED).
   */
  async consume(companyId: number, group: ProductGroup, now: Date = new Date(), known?: ProductPolicy | null): Promise<Charge> {
    // `known`: the policy the caller read during this request (null: it read that the company has none); undefined: read it here
    const policy =
      known === null
        ? null
        : known?.company_id === companyId && known.product_group === group
          ? known
          : await productPolicyOf(this.pool, companyId, group)
    if (!policy) throw forbidden(AUTH_MESSAGES.productDenied(PRODUCT_NAMES[group]))
    const cycle = currentCycle(policy.company_created_at, policy.renewal_cycle_days, now)
    const limit = policy.limit
    const used = await this.take(`${companyId}:${group}:${cycle.start.getTime()}:${limit ?? ''}`, {
      companyId,
      group,
      cycleStart: cycle.start,
      limit,
    })
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
