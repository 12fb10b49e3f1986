import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createTenant, useTestDatabase } from '../../../../test/helpers.ts'
import { AppError } from '../lib/errors.ts'
import { CreditService, productPolicyOf, type Charge, type ProductPolicy } from './credits.ts'

/**
 * The credits of calls that arrive together (docs/decisions/0083): one statement for the calls of a company queued
 * while its previous one was in flight, each call still with its own count, never more than the limit. Two services
 * on two pools stand for two server processes.
 */
describe('credits of calls that arrive together', () => {
  const ctx = useTestDatabase()
  const pools: pg.Pool[] = []
  /** a pool of its own, and how many credit statements it has run (counted by a wrapper: no mock to reset) */
  const countedPool = () => {
    const pool = new pg.Pool({ connectionString: inject('databaseUrl'), max: 3 })
    pools.push(pool)
    const counted = { pool, statements: 0 }
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown
    Object.assign(pool, {
      query: (...args: unknown[]) => {
        if ((args[0] as { name?: string } | null)?.name === 'credit-consume') counted.statements++
        return query(...args)
      },
    })
    return counted
  }
  let first: ReturnType<typeof countedPool>
  let second: ReturnType<typeof countedPool>
  beforeAll(() => {
    first = countedPool()
    second = countedPool()
  })
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()))
  })

  async function companyWith(limit: number | null): Promise<ProductPolicy> {
    const tenant = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT', limit }] })
    const policy = await productPolicyOf(ctx.db.pool, tenant.company.id, 'CARE_SELECT')
    if (!policy) throw new Error('the policy was not created')
    return policy
  }
  const usedOf = async (policy: ProductPolicy) => {
    const { rows } = await ctx.db.pool.query<{ used: number }>(
      'SELECT used FROM credit_usage WHERE company_id = $1 AND product_group = $2::"ProductGroup"',
      [policy.company_id, policy.product_group],
    )
    return rows[0]?.used ?? 0
  }
  /** `count` calls at once (no pause between them), as concurrent requests make them */
  const together = (service: CreditService, policy: ProductPolicy, count: number) =>
    Array.from({ length: count }, () => service.consume(policy.company_id, policy.product_group, new Date(), policy))
  const split = (settled: PromiseSettledResult<Charge>[]) => ({
    charges: settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : [])),
    refusals: settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as AppError] : [])),
  })

  it('takes the credits of the calls queued behind a statement in one statement, each call with a count of its own', async () => {
    const policy = await companyWith(null)
    const service = new CreditService(ctx.db.prisma, first.pool)
    const before = first.statements
    const charges = await Promise.all(together(service, policy, 20))
    // the first call's statement, then one for the 19 that arrived while it was in flight
    expect(first.statements - before).toBe(2)
    expect(charges.map((c) => c.used).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, k) => k + 1))
    expect(charges.every((c) => c.remaining === null && c.limit === null)).toBe(true)
    expect(await usedOf(policy)).toBe(20)
  })

  it('never spends more than the limit: each credit to one call, 402 to the others, in two processes at once', async () => {
    const policy = await companyWith(7)
    const services = [new CreditService(ctx.db.prisma, first.pool), new CreditService(ctx.db.prisma, second.pool)]
    const settled = await Promise.allSettled(services.flatMap((service) => together(service, policy, 10)))
    const { charges, refusals } = split(settled)
    expect(charges.map((c) => c.used).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(charges.map((c) => c.remaining).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(refusals).toHaveLength(13)
    expect(refusals.every((e) => e instanceof AppError && e.status === 402 && e.code === 'CREDITS_EXHAUSTED')).toBe(true)
    expect(await usedOf(policy)).toBe(7)
  })

  it('gives the calls whose credits do not all fit what is left one by one, and refuses the rest', async () => {
    const policy = await companyWith(5)
    const service = new CreditService(ctx.db.prisma, first.pool)
    for (const expected of [4, 3, 2])
      expect((await service.consume(policy.company_id, policy.product_group, new Date(), policy)).remaining).toBe(expected)
    const before = first.statements
    const { charges, refusals } = split(await Promise.allSettled(together(service, policy, 5)))
    // the first call alone (used 4); the four queued behind it do not fit in the one credit left: one is taken (5),
    // the next statement is refused, and so are the two calls after it, without a statement of their own
    expect(charges.map((c) => [c.used, c.remaining])).toEqual([
      [4, 1],
      [5, 0],
    ])
    expect(refusals.map((e) => e.status)).toEqual([402, 402, 402])
    expect(first.statements - before).toBe(4)
    expect(await usedOf(policy)).toBe(5)
    // a limit raised by the company's administrator applies to the next call
    const raised = { ...policy, limit: 6 }
    expect(await service.consume(policy.company_id, policy.product_group, new Date(), raised)).toMatchObject({ used: 6, remaining: 0 })
  })
})
