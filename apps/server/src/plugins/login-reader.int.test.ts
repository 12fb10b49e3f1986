import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createTenant, useTestDatabase } from '../../../../test/helpers.ts'
import { LARGEST_LOGIN_BATCH, loginReader } from './auth.ts'

/**
 * The login read (plugins/auth.ts loginReader, docs/decisions/0083): one statement per batch size, whose generic plan
 * PostgreSQL keeps, so that a connection plans it five times and then never again; every caller gets its own row.
 */
describe('the login read', () => {
  const ctx = useTestDatabase()
  /** one connection: pg_prepared_statements shows the statements of the session that asks */
  let pool: pg.Pool
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: inject('databaseUrl'), max: 1 })
  })
  afterAll(async () => {
    await pool.end()
  })

  /**
   * The plans of the login statement of `size` ids on the connection that ran it `executions` times (the embedded
   * database names each connection's statements `name@connection`, all in its one session).
   */
  async function plansOf(size: number, executions: number): Promise<{ generic: number; custom: number }[]> {
    const { rows } = await pool.query<{ generic_plans: string; custom_plans: string }>(
      `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1 OR name LIKE $1 || '@%'`,
      [`login-principals-${size}`],
    )
    return rows
      .map((row) => ({ generic: Number(row.generic_plans), custom: Number(row.custom_plans) }))
      .filter((plans) => plans.generic + plans.custom === executions)
  }

  it('plans each batch size five times on a connection, then keeps the generic plan', async () => {
    const tenant = await createTenant(ctx.db, { roles: ['admin', 'user', 'member'] })
    const [a, b, c] = tenant.users as [(typeof tenant.users)[0], (typeof tenant.users)[0], (typeof tenant.users)[0]]
    const read = loginReader(pool)
    for (let k = 0; k < 12; k++) expect(await read(a.id)).toMatchObject({ id: a.id, email: a.email, company_id: tenant.company.id })
    // two reads start at once, one call each; the three calls queued meanwhile share the next one (3 ids: the 4-id statement)
    for (let k = 0; k < 8; k++) {
      const rows = await Promise.all([a, b, a, b, c].map((user) => read(user.id)))
      expect(rows.map((row) => row?.email)).toEqual([a, b, a, b, c].map((user) => user.email))
    }
    expect(await plansOf(1, 12 + 16)).toEqual([{ custom: 5, generic: 12 + 16 - 5 }])
    expect(await plansOf(4, 8)).toEqual([{ custom: 5, generic: 8 - 5 }])
  })

  it('gives each caller of a batch its own row, in batches larger than the largest statement too', async () => {
    const tenants = await Promise.all([1, 2].map(() => createTenant(ctx.db, { roles: ['admin', 'user'] })))
    const users = tenants.flatMap((tenant) => tenant.users.map((user) => ({ ...user, company_name: tenant.company.company_name })))
    const read = loginReader(pool)
    // ids no user has, around the real ones: the batch behind the first two reads spans two statements
    const missing = Array.from({ length: LARGEST_LOGIN_BATCH + 5 }, (_, k) => 2_000_000_000 + k)
    const ids = [missing[0]!, missing[1]!, ...users.map((user) => user.id), ...missing.slice(2)]
    const rows = await Promise.all(ids.map((id) => read(id)))
    for (const [index, id] of ids.entries()) {
      const user = users.find((candidate) => candidate.id === id)
      if (!user) expect(rows[index], String(id)).toBeUndefined()
      else
        expect(rows[index]).toMatchObject({
          id,
          email: user.email,
          company_id: user.company_id,
          company_name: user.company_name,
          role: user.role,
          is_active: true,
          plan_tier: 'BASE',
          policies: [{ product_group: 'ATLAS', limit: null }],
        })
    }
  })
})
