import { CREDIT_MESSAGES, type ProductGroup } from '@citrus/contracts'
import type { FastifyInstance } from 'fastify'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createTenant, eventually, loginTokenFor, useTestApp } from '../../../../test/helpers.ts'
import { apiKeyResolver } from '../auth/api-keys.ts'
import { registerAuth, requireProduct } from '../plugins/auth.ts'
import { CREDITS_REMAINING_HEADER, registerCredits } from '../plugins/credits.ts'
import { currentCycle, isoDay } from './credits.ts'

const DAY = 24 * 60 * 60 * 1000

/**
 * Metered test routes composed the way routes/index.ts composes the /api scope (auth, API keys,
 * credits), in a scope of their own: /api/__metered/{group} takes one credit per call.
 */
async function addMeteredRoutes(app: FastifyInstance) {
  await app.register(
    async (scope) => {
      registerAuth(scope)
      scope.credentials.register(apiKeyResolver)
      registerCredits(scope)
      for (const group of ['ATLAS', 'NOVA'] as const satisfies ProductGroup[]) {
        scope.get(`/${group}`, { onRequest: requireProduct(group), preHandler: scope.meterProduct(group) }, async () => ({ ok: true }))
      }
      scope.get('/boom', { onRequest: requireProduct('ATLAS'), preHandler: scope.meterProduct('ATLAS') }, async () => {
        throw new Error('upstream failed')
      })
      scope.get('/direct', { onRequest: requireProduct('ATLAS') }, async (req) => {
        const charge = await scope.meter(req, 'ATLAS')
        return { remaining: charge.remaining }
      })
    },
    { prefix: '/api/__metered' },
  )
}

describe('product credits', () => {
  const ctx = useTestApp({}, { beforeReady: addMeteredRoutes })

  async function tenantWith(products: { product_group: ProductGroup; limit?: number | null }[]) {
    const tenant = await createTenant(ctx.db, { roles: ['admin', 'user'], products })
    const admin = { authorization: `Bearer ${await loginTokenFor(tenant.users[0]!, tenant.company.company_name)}` }
    const user = { authorization: `Bearer ${await loginTokenFor(tenant.users[1]!, tenant.company.company_name)}` }
    return { ...tenant, admin, user }
  }
  const usage = async (headers: Record<string, string>) => {
    const response = await request(ctx.app.server).get('/api/admin/product-usage').set(headers)
    expect(response.status).toBe(200)
    return response.body.products as {
      product_group: string
      remaining_count: number | null
      is_infinite: boolean
      used_count: number
      renews_on: string
    }[]
  }

  it('decrements the remaining count per metered call, stops at zero with 402, and renews in a new cycle', async () => {
    const t = await tenantWith([{ product_group: 'ATLAS', limit: 3 }, { product_group: 'NOVA' }])
    for (const expected of [2, 1, 0]) {
      const response = await request(ctx.app.server).get('/api/__metered/ATLAS').set(t.user)
      expect(response.status).toBe(200)
      expect(response.headers[CREDITS_REMAINING_HEADER]).toBe(String(expected))
      expect((await usage(t.admin))[0]).toMatchObject({ product_group: 'ATLAS', remaining_count: expected, used_count: 3 - expected })
    }
    const renewsOn = isoDay(currentCycle(t.company.created_at, 30).end)
    const spent = await request(ctx.app.server).get('/api/__metered/ATLAS').set(t.user)
    expect(spent.status).toBe(402)
    expect(spent.body).toEqual({ message: CREDIT_MESSAGES.exhausted('ATLAS', renewsOn), code: 'CREDITS_EXHAUSTED', status: 402 })
    expect(spent.body.message).toBe(`Your organization has used all CITRUS ATLAS credits for this cycle. Credits renew on ${renewsOn}.`)
    expect((await usage(t.admin))[0]).toMatchObject({ remaining_count: 0, used_count: 3, renews_on: renewsOn })

    // the other product is not affected, and it is unlimited
    const nova = await request(ctx.app.server).get('/api/__metered/NOVA').set(t.user)
    expect(nova.status).toBe(200)
    expect(nova.headers[CREDITS_REMAINING_HEADER]).toBeUndefined()
    expect((await usage(t.admin))[1]).toMatchObject({ product_group: 'NOVA', remaining_count: null, is_infinite: true, used_count: 1 })

    // a new cycle: the company was created a cycle and a day ago
    await ctx.db.prisma.company.update({ where: { id: t.company.id }, data: { created_at: new Date(Date.now() - 31 * DAY) } })
    expect((await usage(t.admin))[0]).toMatchObject({ remaining_count: 3, used_count: 0 })
    const renewed = await request(ctx.app.server).get('/api/__metered/ATLAS').set(t.user)
    expect(renewed.status).toBe(200)
    expect(renewed.headers[CREDITS_REMAINING_HEADER]).toBe('2')
  })

  it('refuses a company with a zero limit at once, and one without the product with 403', async () => {
    const t = await tenantWith([{ product_group: 'ATLAS', limit: 0 }])
    const zero = await request(ctx.app.server).get('/api/__metered/ATLAS').set(t.user)
    expect(zero.status).toBe(402)
    expect(zero.body.code).toBe('CREDITS_EXHAUSTED')
    const none = await request(ctx.app.server).get('/api/__metered/NOVA').set(t.user)
    expect(none.status).toBe(403)
  })

  it("meters API-key calls against the owner's company, and ctx.app.meter directly", async () => {
    const t = await tenantWith([{ product_group: 'ATLAS', limit: 5 }])
    const key = await request(ctx.app.server).post('/api/admin/api-token').set(t.admin).send({ name: 'metered' })
    expect(key.status).toBe(200)
    const viaKey = await request(ctx.app.server)
      .get('/api/__metered/ATLAS')
      .set({ authorization: `Bearer ${key.body.token as string}` })
    expect(viaKey.status).toBe(200)
    const direct = await request(ctx.app.server).get('/api/__metered/direct').set(t.user)
    expect(direct.body).toEqual({ remaining: 3 })
  })

  it('gives the credit back when the call fails on the server side', async () => {
    const t = await tenantWith([{ product_group: 'ATLAS', limit: 2 }])
    const failed = await request(ctx.app.server).get('/api/__metered/boom').set(t.user)
    expect(failed.status).toBe(500)
    await eventually(async () => expect((await usage(t.admin))[0]).toMatchObject({ remaining_count: 2, used_count: 0 }))
  })

  it('requires a signed-in caller', async () => {
    const anonymous = await request(ctx.app.server).get('/api/__metered/ATLAS')
    expect(anonymous.status).toBe(401)
  })

  it('never spends more than the limit under concurrent calls', async () => {
    const t = await tenantWith([{ product_group: 'ATLAS', limit: 5 }])
    const responses = await Promise.all(Array.from({ length: 12 }, () => request(ctx.app.server).get('/api/__metered/ATLAS').set(t.user)))
    expect(responses.filter((r) => r.status === 200)).toHaveLength(5)
    expect(responses.filter((r) => r.status === 402)).toHaveLength(7)
    expect((await usage(t.admin))[0]).toMatchObject({ remaining_count: 0, used_count: 5 })
  })
})
