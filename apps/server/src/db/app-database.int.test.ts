import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createTenant, loginTokenFor, TEST_PASSWORD, useTestApp } from '../../../../test/helpers.ts'

/** Runs task(0 .. count-1) with `width` of them in flight at a time. */
async function atWidth(width: number, count: number, task: (i: number) => Promise<void>) {
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < count; i = next++) await task(i)
    }),
  )
}

/**
 * The two reproductions of issue 9 §1 through the application, in both database modes: concurrent look-ups
 * on named prepared statements, and thousands of failing logins (docs/decisions/0011).
 */
describe('the application on its database under concurrency and bad input', () => {
  const ctx = useTestApp({}, { dataset: true })

  it('answers 16 concurrent look-ups of each kind with 200 and the same rows as one at a time', async () => {
    const { company, users } = await createTenant(ctx.db, { roles: ['user'], products: [{ product_group: 'CARE_SELECT' }] })
    const token = await loginTokenFor(users[0]!, company.company_name)
    const lookups = [
      ['/api/typeahead/icd10-fuzzy', 'diabtes'],
      ['/api/typeahead/cpt-fuzzy', 'knee replacment'],
      ['/api/typeahead/procedure-typeahead', 'knee'],
      ['/api/typeahead/omni', 'cardio'],
    ] as const
    for (const [path, query] of lookups) {
      const url = `${path}?query=${encodeURIComponent(query)}&limit=5`
      const get = () => ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })
      const alone = await get()
      expect(alone.statusCode, `${path}: ${alone.body}`).toBe(200)
      const body = alone.json() as Record<string, unknown[]>
      expect(Object.values(body)[0]!.length, path).toBeGreaterThan(0)
      // twice: the first burst prepares the named statements on every pooled connection, the second reuses them
      for (let round = 0; round < 2; round++) {
        const answers = await Promise.all(Array.from({ length: 16 }, get))
        for (const answer of answers) {
          expect(answer.statusCode, `${path}: ${answer.body}`).toBe(200)
          expect(answer.json()).toEqual(body)
        }
      }
    }
  })

  it('still signs in after 3,600 logins with a NUL byte in the e-mail', async () => {
    const { users } = await createTenant(ctx.db, { roles: ['user'] })
    const statuses = new Map<number, number>()
    // a new e-mail and client address each time, so that no rate limit stops them before the database
    await atWidth(16, 3_600, async (i) => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/api/users/login',
        remoteAddress: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
        payload: { email: `nul-${randomUUID().slice(0, 8)}\u0000@test.citrus`, password: TEST_PASSWORD },
      })
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1)
    })
    // refused as bad input (400) or as an unknown account (401), never a server error
    expect(
      [...statuses.keys()].every((status) => status === 400 || status === 401),
      JSON.stringify([...statuses]),
    ).toBe(true)
    const valid = await ctx.app.inject({
      method: 'POST',
      url: '/api/users/login',
      remoteAddress: '10.255.0.1',
      payload: { email: users[0]!.email, password: TEST_PASSWORD },
    })
    expect(valid.statusCode, valid.body).toBe(200)
    expect(valid.json()).toEqual({ token: expect.any(String) })
    const health = await ctx.app.inject({ method: 'GET', url: '/healthz' })
    expect(health.statusCode).toBe(200)
    const ready = await ctx.app.inject({ method: 'GET', url: '/readyz' })
    expect(ready.json()).toMatchObject({ status: 'ready', database: 'up' })
  })
})
