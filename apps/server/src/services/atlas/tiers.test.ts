import type { FastifyRequest } from 'fastify'
import { describe, expect, it } from 'vitest'
import { planTierOf } from './tiers.ts'

/** A request as the auth plugin leaves it, on a pool that counts the connections asked for (and has none). */
function requestOf(companyId: number, readWithLogin: { company_id: number; plan_tier: string } | null) {
  const pool = {
    connections: 0,
    connect() {
      this.connections++
      return Promise.reject(new Error('no database here'))
    },
  }
  const request = {
    auth: { kind: 'user', company_id: companyId, role: 'user' },
    authError: null,
    companyPolicies: readWithLogin && { ...readWithLogin, policies: new Map() },
    server: { db: { pool } },
  } as unknown as FastifyRequest
  return { request, pool }
}

describe('planTierOf', () => {
  it("takes the tier read with the login principal when the company is the caller's: no statement of its own (0083)", async () => {
    const { request, pool } = requestOf(7, { company_id: 7, plan_tier: 'ENTERPRISE' })
    expect(await planTierOf(request)).toBe('ENTERPRISE')
    // a value the contract does not know is the base tier, as when it is read apart
    expect(await planTierOf(requestOf(7, { company_id: 7, plan_tier: 'PLATINUM' }).request)).toBe('BASE')
    expect(pool.connections).toBe(0)
  })

  it('reads the tier from the database for another company (a guest of a link) or without a login read (API keys)', async () => {
    for (const { request, pool } of [requestOf(7, { company_id: 8, plan_tier: 'ENTERPRISE' }), requestOf(7, null)]) {
      await expect(planTierOf(request)).rejects.toThrow('no database here')
      expect(pool.connections).toBe(1)
    }
  })
})
